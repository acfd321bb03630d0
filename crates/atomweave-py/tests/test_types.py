"""The type table: atomweave.types, get_type_name, is_a, register_type."""

import itertools

import pytest

import atomweave
from atomweave import AtomSpace, get_type_name, is_a, load_str, register_type, type_constructors, types

_counter = itertools.count()


def fresh(stem):
    """A type name no other test has registered (the table is process-wide)."""
    return f"{stem}{next(_counter)}X{id(fresh) % 1000}"


def test_types_are_distinct_ints():
    core = ["Atom", "Node", "Link", "ConceptNode", "PredicateNode", "ListLink", "InheritanceLink",
            "EvaluationLink", "VariableNode", "GetLink", "BindLink", "SetLink"]
    ids = [getattr(types, n) for n in core]
    assert all(isinstance(i, int) for i in ids)
    assert len(set(ids)) == len(ids)


def test_types_has_the_whole_table():
    listed = dir(types)
    assert listed == sorted(listed)
    assert len(listed) >= 220
    for n in ["ConceptNode", "ExistsLink", "ForAllLink", "SchemaNode", "ExecutionLink", "FloatValue",
              "TruthValue", "CountTruthValue", "GlobNode", "TypedVariableLink", "QueryLink", "MeetLink",
              "DualLink", "StateLink", "DefineLink", "PlusLink", "GreaterThanLink"]:
        assert n in listed, n
        assert isinstance(getattr(types, n), int)


def test_short_names_resolve_to_the_same_type():
    assert types.Concept == types.ConceptNode
    assert types.Inheritance == types.InheritanceLink
    assert types.Predicate == types.PredicateNode


def test_unknown_type_is_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchType"):
        types.NoSuchType
    assert not hasattr(types, "NoSuchType")


def test_get_type_name():
    assert get_type_name(types.ConceptNode) == "ConceptNode"
    assert get_type_name(types.InheritanceLink) == "InheritanceLink"
    assert get_type_name("Concept") == "ConceptNode"
    assert get_type_name("ListLink") == "ListLink"
    for n in dir(types):
        if n != "Notype":
            assert get_type_name(getattr(types, n)) == n
    assert get_type_name(types.NO_TYPE) == "*** Bottom Type! ***"


# Parent relations from the reference's core table.
IS_A = [
    ("ConceptNode", "Node"), ("ConceptNode", "Atom"), ("ConceptNode", "Value"),
    ("ListLink", "OrderedLink"), ("ListLink", "Link"), ("SetLink", "UnorderedLink"),
    ("InheritanceLink", "OrderedLink"), ("SimilarityLink", "UnorderedLink"),
    ("AndLink", "UnorderedLink"), ("AbsentLink", "PresentLink"), ("GlobNode", "VariableNode"),
    ("GetLink", "PatternLink"), ("BindLink", "PatternLink"), ("PatternLink", "ScopeLink"),
    ("TruthValue", "FloatValue"), ("CountTruthValue", "TruthValue"), ("FloatValue", "Value"),
]


@pytest.mark.parametrize("child,parent", IS_A)
def test_is_a_follows_the_hierarchy(child, parent):
    assert is_a(getattr(types, child), getattr(types, parent))
    assert is_a(child, parent)


@pytest.mark.parametrize("child,parent", [
    ("Node", "ConceptNode"), ("ConceptNode", "Link"), ("ListLink", "UnorderedLink"),
    ("SetLink", "OrderedLink"), ("FloatValue", "Atom"), ("PredicateNode", "ConceptNode"),
])
def test_is_a_is_false_elsewhere(child, parent):
    assert not is_a(getattr(types, child), getattr(types, parent))


def test_is_a_is_reflexive():
    assert is_a(types.ConceptNode, types.ConceptNode)
    assert is_a(types.Atom, types.Atom)


def test_register_node_type():
    name = fresh("ZooNode")
    t = register_type(name, [types.ConceptNode])
    assert isinstance(t, int)
    assert getattr(types, name) == t
    assert get_type_name(t) == name
    assert is_a(t, types.ConceptNode) and is_a(t, types.Node)
    assert not is_a(t, types.Link)
    assert name in dir(types)


def test_register_type_gives_a_constructor():
    name = fresh("ZooNode")
    t = register_type(name, ["ConceptNode"])
    ctor = getattr(type_constructors, name)
    assert ctor.type == t
    s = AtomSpace()
    a = ctor("z", atomspace=s)
    assert a.type == t and a.type_name == name and a.name == "z"
    assert a.is_node()


def test_registered_type_constructor_at_package_root():
    name = fresh("RootNode")
    t = register_type(name, [types.ConceptNode])
    assert getattr(atomweave, name).type == t


def test_registered_type_in_queries_by_type():
    name = fresh("KindNode")
    t = register_type(name, [types.ConceptNode])
    s = AtomSpace()
    c = s.add_node(types.ConceptNode, "c")
    k = s.add_node(t, "k")
    assert set(s.get_atoms_by_type(types.ConceptNode)) == {c, k}
    assert s.get_atoms_by_type(types.ConceptNode, subtype=False) == [c]
    assert s.get_atoms_by_type(t) == [k]


def test_register_link_type_with_short_name():
    name = fresh("ZooLink")
    short = fresh("Zoo")
    t = register_type(name, [types.OrderedLink], short)
    assert getattr(types, short) == t
    assert get_type_name(short) == name
    s = AtomSpace()
    [l] = load_str(f'({short} (Concept "a") (Concept "b"))', s)
    assert l.type == t
    assert [x.name for x in l.out] == ["a", "b"]
    assert repr(l).startswith(f"({short}")
    [l2] = load_str(f'({name} (ConceptNode "a") (ConceptNode "b"))', s)
    assert l2 == l


def test_register_unordered_link_type_is_canonical():
    t = register_type(fresh("BagLink"), [types.UnorderedLink])
    s = AtomSpace()
    a, b = s.add_node(types.ConceptNode, "a"), s.add_node(types.ConceptNode, "b")
    assert s.add_link(t, [a, b]) == s.add_link(t, [b, a])


def test_register_with_two_parents():
    t = register_type(fresh("TwoParentNode"), [types.ConceptNode, types.PredicateNode])
    assert is_a(t, types.ConceptNode) and is_a(t, types.PredicateNode)


def test_register_same_type_again_is_idempotent():
    name = fresh("AgainNode")
    t1 = register_type(name, [types.ConceptNode])
    t2 = register_type(name, [types.ConceptNode])
    assert t1 == t2


def test_register_existing_type_with_other_parents_fails():
    with pytest.raises(ValueError):
        register_type("ConceptNode", [types.ListLink])


def test_register_needs_a_parent():
    with pytest.raises(ValueError):
        register_type(fresh("OrphanNode"), [])


def test_register_with_unknown_parent_fails():
    with pytest.raises(ValueError):
        register_type(fresh("BadNode"), ["NoSuchParentType"])


def test_register_with_bad_name_fails():
    with pytest.raises(ValueError):
        register_type("has space", [types.ConceptNode])
    with pytest.raises(ValueError):
        register_type("", [types.ConceptNode])


def test_register_node_and_link_parents_fails():
    with pytest.raises(ValueError):
        register_type(fresh("NodeLink"), [types.ConceptNode, types.ListLink])


def test_type_constructors_have_every_atom_type_but_no_value_type():
    ctors = set(type_constructors.__all__)
    assert "ConceptNode" in ctors and "InheritanceLink" in ctors and "GetLink" in ctors
    for value_type in ["FloatValue", "StringValue", "LinkValue", "TruthValue", "Value", "Atom"]:
        assert value_type not in ctors
    for n in ctors:
        t = getattr(types, n)
        assert is_a(t, types.Node) or is_a(t, types.Link), n


def test_unknown_constructor_is_attribute_error():
    with pytest.raises(AttributeError):
        type_constructors.NoSuchTypeNode


def test_register_with_clashing_name_fails():
    with pytest.raises(ValueError, match="Concept"):
        register_type("Concept", [types.Node])  # ConceptNode's short name


def test_register_with_clashing_short_name_names_it():
    name = fresh("ClashLink")
    with pytest.raises(ValueError, match=r"\bList\b"):
        register_type(name, [types.OrderedLink], "List")
