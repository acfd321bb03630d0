"""Names and behaviours classic upstream scripts rely on (opencog.atomspace,
opencog.type_constructors, opencog.utilities, opencog.bindlink)."""

import pytest

import atomweave
from atomweave import AtomSpace, TruthValue, get_default_atomspace, set_default_atomspace, types


def test_upstream_module_names_map_to_atomweave():
    # opencog.atomspace
    for n in ["AtomSpace", "TruthValue", "types", "Atom", "FloatValue", "StringValue", "LinkValue", "get_type_name", "is_a"]:
        assert hasattr(atomweave, n), n
    # opencog.utilities
    for n in ["set_default_atomspace", "get_default_atomspace", "push_default_atomspace", "pop_default_atomspace", "load_file"]:
        assert hasattr(atomweave, n), n
    # opencog.bindlink
    for n in ["execute_atom", "evaluate_atom"]:
        assert hasattr(atomweave, n), n


def test_create_atoms_simple_upstream_example(keep_default):
    """upstream examples/python/create_atoms_simple.py, keyword-tv form."""
    ns = {}
    exec(
        "from atomweave import *\n"
        "a = AtomSpace()\n"
        "set_default_atomspace(a)\n"
        "TV = TruthValue(1, 0.8)\n"
        "A = ConceptNode('Apple', tv=TV)\n"
        "B = ConceptNode('Berry', tv=TruthValue(0.5, 0.75))\n"
        "C = ConceptNode('Comestible', tv=TV)\n"
        "AB = InheritanceLink(A, B, tv=TV)\n"
        "BC = InheritanceLink(B, C, tv=TV)\n"
        "AC = InheritanceLink(A, C)\n"
        "atoms = a.get_atoms_by_type(types.Atom)\n",
        ns,
    )
    assert len(ns["atoms"]) == 6
    assert ns["AB"].tv == TruthValue(1, 0.8)
    assert ns["AC"].tv == TruthValue()


def test_values_upstream_example(space):
    """upstream examples/python/values.py."""
    from atomweave import ConceptNode, FloatValue, PredicateNode

    a = FloatValue([1.0, 2.0, 3.0])
    b = FloatValue([1.0, 2.0, 3.0])
    c = FloatValue(1.0)
    assert a == b
    assert a != c
    boundingBox = ConceptNode("boundingBox")
    featureKey = PredicateNode("features")
    boundingBox.set_value(featureKey, FloatValue([1.0, 2]))
    assert boundingBox.get_value(featureKey).to_list() == [1.0, 2.0]


def test_add_node_with_positional_tv_on_the_space(space):
    a = space.add_node(types.ConceptNode, "a", TruthValue(0.5, 0.5))
    l = space.add_link(types.ListLink, [a], TruthValue(0.25, 0.5))
    assert a.tv == TruthValue(0.5, 0.5) and l.tv == TruthValue(0.25, 0.5)


def test_initialize_opencog(keep_default):
    s = AtomSpace()
    atomweave.initialize_opencog(s)
    assert get_default_atomspace() == s
    atomweave.finalize_opencog()


def test_tmp_atomspace(keep_default):
    base = AtomSpace()
    set_default_atomspace(base)
    with atomweave.tmp_atomspace() as tmp:
        assert tmp.bases == [base]
        assert get_default_atomspace() == tmp
        atomweave.ConceptNode("temporary")
    assert get_default_atomspace() == base
    assert base.get_node(types.ConceptNode, "temporary") is None


def test_atom_is_a(space):
    a = atomweave.ConceptNode("a")
    assert a.is_a(types.Node)
    assert not a.is_a(types.Link)


def test_get_type_by_name():
    assert atomweave.get_type("ConceptNode") == types.ConceptNode
    assert atomweave.get_type("") == types.NO_TYPE
    assert atomweave.get_type("NoSuchType") == types.NO_TYPE
    assert types.NO_TYPE == types.Notype


def test_create_child_atomspace_sees_its_base_and_keeps_its_own():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = atomweave.create_child_atomspace(base)
    assert child.bases == [base]
    b = child.add_node(types.ConceptNode, "b")
    assert a in child and b in child
    assert not base.is_node_in_atomspace(types.ConceptNode, "b")


def test_is_valid_and_is_in_atomspace():
    s = AtomSpace()
    a = s.add_node(types.ConceptNode, "a")
    l = s.add_link(types.ListLink, [a])
    assert s.is_valid(a)
    assert not AtomSpace().is_valid(a)
    with pytest.raises(TypeError):
        s.is_valid("test")
    assert s.is_node_in_atomspace(types.ConceptNode, "a")
    assert not s.is_node_in_atomspace(types.ConceptNode, "z")
    assert s.is_link_in_atomspace(types.ListLink, [a])
    assert not s.is_link_in_atomspace(types.SetLink, [a])
    assert l in s


def test_include_incoming_and_outgoing():
    s = AtomSpace()
    frog, animal, green = (s.add_node(types.ConceptNode, n) for n in ("Frog", "animal", "green"))
    inh = s.add_link(types.InheritanceLink, [frog, animal])
    sim = s.add_link(types.SimilarityLink, [animal, green])
    with_in = AtomSpace.include_incoming([frog])
    assert with_in == [frog, inh]
    assert set(AtomSpace.include_outgoing(with_in)) == {frog, inh, animal}
    assert len(AtomSpace.include_incoming([frog, animal])) == 4
    assert sim in AtomSpace.include_incoming([green])
    assert AtomSpace.include_incoming([]) == []


def test_truth_value_chains():
    s = AtomSpace()
    a = s.add_node(types.ConceptNode, "a").truth_value(0.5, 0.8)
    assert (a.tv.mean, a.tv.confidence) == (0.5, 0.8)
    assert s.get_node(types.ConceptNode, "a").tv == TruthValue(0.5, 0.8)


def test_a_link_value_of_one_value():
    from atomweave import FloatValue, LinkValue, StringValue
    assert LinkValue(StringValue("foo")).to_list() == [StringValue("foo")]
    assert LinkValue(StringValue("foo")) == LinkValue([StringValue("foo")])
    assert LinkValue([FloatValue([1.0]), StringValue("x")]).to_list() == [FloatValue([1.0]), StringValue("x")]


def test_declared_types_and_module_level_adds(keep_default):
    from atomweave import add_link, add_node, decl_type, get_type_name, type_decl_context
    with type_decl_context(__name__):
        node_t = decl_type(types.Node, "CompatDeclNode")
        link_t = decl_type(types.Link, "CompatDeclLink")
    assert types.CompatDeclNode == node_t and get_type_name(link_t) == "CompatDeclLink"
    space = AtomSpace()
    set_default_atomspace(space)
    n = add_node(types.CompatDeclNode, "x", TruthValue(0.5, 0.5))
    l = add_link(types.CompatDeclLink, (n, n))
    assert n in space and l in space and l.out == [n, n]
    assert n.tv == TruthValue(0.5, 0.5)


def test_free_variables_and_closed_atoms():
    from atomweave import get_free_variables, is_closed
    s = AtomSpace()
    a, b = s.add_node(types.ConceptNode, "A"), s.add_node(types.ConceptNode, "B")
    x, y = s.add_node(types.VariableNode, "$X"), s.add_node(types.VariableNode, "$Y")
    assert is_closed(s.add_link(types.InheritanceLink, [a, b]))
    ax = s.add_link(types.InheritanceLink, [a, x])
    assert not is_closed(ax)
    assert get_free_variables(ax) == [x]
    lam = s.add_link(types.LambdaLink, [x, s.add_link(types.ListLink, [x, y])])
    assert get_free_variables(lam) == [y]


def test_values_know_their_type():
    from atomweave import FloatValue, LinkValue, StringValue
    assert FloatValue([1.0]).type == types.FloatValue
    assert StringValue("a").type == types.StringValue
    assert LinkValue([StringValue("a")]).type == types.LinkValue
    assert TruthValue(0.5, 0.5).type == types.SimpleTruthValue
    assert atomweave.CountTruthValue(0.5, 0.5, 3).type == types.CountTruthValue


def test_values_answer_upstreams_kind_questions(space):
    from atomweave import FloatValue, LinkValue, StringValue
    for value, name in ((FloatValue([1.0]), "FloatValue"), (StringValue("a"), "StringValue"), (LinkValue([StringValue("a")]), "LinkValue")):
        assert value.type_name == name
        assert not value.is_atom() and not value.is_node() and not value.is_link()
        assert value.is_a(types.Value)
        assert not value.is_a(types.Atom)
    assert FloatValue([1.0]).is_a(types.FloatValue) and not FloatValue([1.0]).is_a(types.StringValue)
    assert space.add_node(types.ConceptNode, "a").is_atom()


def test_a_link_value_prints_one_member_a_line_as_upstream(space):
    from atomweave import FloatValue, LinkValue, StringValue
    bar = space.add_node(types.ConceptNode, "bar")
    value = LinkValue([FloatValue(1), StringValue("foo"), bar, LinkValue([FloatValue(2)])])
    assert str(value) == '(LinkValue\n  (FloatValue 1)\n  (StringValue "foo")\n  (Concept "bar")\n  (LinkValue\n    (FloatValue 2)))'
    assert str(LinkValue([])) == "(LinkValue)"
    assert repr(value).count("\n") == 0, "repr stays on one line"


def test_type_names_as_upstreams_name_server_gives_them():
    assert atomweave.get_type_name(types.ConceptNode) == "ConceptNode"
    assert atomweave.get_type_name(60000) == ""
    assert atomweave.get_type_name(types.NO_TYPE) == "*** Bottom Type! ***"


def test_a_key_that_is_not_an_atom_names_what_it_got(space):
    a = space.add_node(types.ConceptNode, "a")
    with pytest.raises(TypeError, match="key should be an instance of Atom, got <class 'str'> instead"):
        a.set_value("k", atomweave.FloatValue([1.0]))
    with pytest.raises(TypeError, match="key should be an instance of Atom"):
        a.get_value(3)


def test_a_value_may_hold_an_atomspace(space):
    held = AtomSpace()
    held.add_node(types.ConceptNode, "mom")
    a = space.add_node(types.ConceptNode, "me")
    k = space.add_node(types.PredicateNode, "memory")
    a.set_value(k, held)
    got = a.get_value(k)
    assert isinstance(got, AtomSpace) and got == held and len(got) == 1
    assert atomweave.LinkValue([held]).to_list() == [held]
