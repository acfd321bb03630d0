"""AtomSpace: adding, finding, counting, iterating, removing, clearing."""

import pytest

import atomweave
from atomweave import AtomSpace, FloatValue, TruthValue, types


def names(atoms):
    return sorted(a.name for a in atoms)


def test_new_space_is_empty():
    s = AtomSpace()
    assert len(s) == 0
    assert s.size() == 0
    assert list(s) == []
    assert s.bases == []


def test_add_node_returns_the_node(space):
    a = space.add_node(types.ConceptNode, "cat")
    assert a.name == "cat"
    assert a.type == types.ConceptNode
    assert a.atomspace == space
    assert len(space) == 1


def test_add_node_twice_gives_the_same_atom(space):
    a = space.add_node(types.ConceptNode, "cat")
    b = space.add_node(types.ConceptNode, "cat")
    assert a == b
    assert a.handle == b.handle
    assert len(space) == 1


def test_same_name_different_type_are_different_atoms(space):
    a = space.add_node(types.ConceptNode, "cat")
    b = space.add_node(types.PredicateNode, "cat")
    assert a != b
    assert len(space) == 2


def test_add_takes_a_type_by_name_but_add_node_as_upstream_does_not(space):
    a = space.add(types.ConceptNode, "x")
    assert space.add("ConceptNode", "x") == a
    assert space.add("Concept", "x") == a  # the short name
    l = space.add("ListLink", out=[a])
    assert l.type == types.ListLink
    with pytest.raises(TypeError, match="get_type"):
        space.add_node("ConceptNode", "x")
    with pytest.raises(TypeError, match="get_type"):
        space.add_link("ListLink", [a])


def test_a_node_type_for_a_link_is_a_type_error_and_upstreams_runtime_error(space):
    a = space.add_node(types.ConceptNode, "x")
    for wanted in (TypeError, RuntimeError, atomweave.AtomTypeError):
        with pytest.raises(wanted, match="not a Link type"):
            space.add_link(types.ConceptNode, [a])
    with pytest.raises(atomweave.AtomTypeError):
        space.add_node(types.ListLink, "x")


def test_add_node_with_tv(space):
    a = space.add_node(types.ConceptNode, "cat", TruthValue(0.5, 0.25))
    assert a.tv == TruthValue(0.5, 0.25)
    b = space.add_node(types.ConceptNode, "dog", tv=TruthValue(0.75, 0.5))
    assert b.tv.mean == 0.75 and b.tv.confidence == 0.5


def test_re_adding_with_tv_updates_tv_and_without_keeps_it(space):
    space.add_node(types.ConceptNode, "cat", TruthValue(0.5, 0.25))
    a = space.add_node(types.ConceptNode, "cat")
    assert a.tv == TruthValue(0.5, 0.25)
    space.add_node(types.ConceptNode, "cat", TruthValue(0.125, 0.5))
    assert a.tv == TruthValue(0.125, 0.5)


def test_add_link(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    l = space.add_link(types.InheritanceLink, [a, b], TruthValue(0.9, 0.8))
    assert l.out == [a, b]
    assert l.arity == 2
    assert l.tv == TruthValue(0.9, 0.8)
    assert space.add_link(types.InheritanceLink, [a, b]) == l
    assert space.add_link(types.InheritanceLink, [b, a]) != l  # ordered
    assert len(space) == 4


def test_add_link_accepts_any_iterable(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    l1 = space.add_link(types.ListLink, (a, b))
    l2 = space.add_link(types.ListLink, iter([a, b]))
    assert l1 == l2
    assert len(space) == 3


def test_add_links_adds_in_order_or_nothing(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    old = space.add_link(types.ListLink, [a, b])
    links = space.add_links([(types.ListLink, [a, b]), ("SetLink", (b, a)), (types.InheritanceLink, iter([a, b]))])
    assert links[0] == old
    assert links[1] == space.add_link(types.SetLink, [a, b])
    assert links[2].out == [a, b] and links[2].type == types.InheritanceLink
    assert len(space) == 5
    gone = space.add_node(types.ConceptNode, "gone")
    space.remove(gone)
    for bad, error, says in (([(types.ListLink, [b, a]), (types.ListLink, [a, gone])], RuntimeError, "no atom"),
                             ([(types.ListLink, [b, a]), (types.ConceptNode, [a])], TypeError, "not a Link type"),
                             ([(types.ListLink, [b, a]), "not a pair"], TypeError, "pairs, not str")):
        with pytest.raises(error, match=says):
            space.add_links(bad)
        assert len(space) == 5  # the good first link was not added either
    assert space.add_links([]) == []


def test_empty_link(space):
    l = space.add_link(types.ListLink, [])
    assert l.arity == 0 and l.out == []
    assert l.is_link()
    assert space.add_link(types.ListLink, []) == l


def test_unordered_links_are_canonical(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    s1 = space.add_link(types.SetLink, [a, b])
    s2 = space.add_link(types.SetLink, [b, a])
    assert s1 == s2
    assert sorted(x.name for x in s1.out) == ["a", "b"]
    sim1 = space.add_link(types.SimilarityLink, [a, b])
    sim2 = space.add_link(types.SimilarityLink, [b, a])
    assert sim1 == sim2
    assert len(space) == 4


def test_nested_links(space):
    a = space.add_node(types.ConceptNode, "a")
    inner = space.add_link(types.ListLink, [a, a])
    outer = space.add_link(types.ListLink, [inner, a])
    assert outer.out[0] == inner
    assert outer.out[0].out == [a, a]
    assert len(space) == 3


def test_add_dispatches_on_name_or_out(space):
    n = space.add(types.ConceptNode, "n")
    assert n.is_node() and n.name == "n"
    n2 = space.add(types.ConceptNode, name="n", tv=TruthValue(0.5, 0.5))
    assert n2 == n and n.tv == TruthValue(0.5, 0.5)
    l = space.add(types.ListLink, out=[n])
    assert l.is_link() and l.out == [n]
    e = space.add(types.ListLink)
    assert e.is_link() and e.arity == 0
    assert len(space) == 3


def test_get_node_and_get_link(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    l = space.add_link(types.ListLink, [a, b])
    assert space.get_node(types.ConceptNode, "a") == a
    assert space.get_node("ConceptNode", "a") == a
    assert space.get_node(types.ConceptNode, "zzz") is None
    assert space.get_node(types.PredicateNode, "a") is None
    assert space.get_link(types.ListLink, [a, b]) == l
    assert space.get_link(types.ListLink, [b, a]) is None
    assert space.get_link(types.SetLink, [a, b]) is None
    # Lookups add nothing.
    assert len(space) == 3


def test_get_link_unordered_in_any_order(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    s = space.add_link(types.SetLink, [a, b])
    assert space.get_link(types.SetLink, [b, a]) == s


def test_len_size_and_iteration(space):
    atoms = {space.add_node(types.ConceptNode, f"n{i}") for i in range(10)}
    atoms.add(space.add_link(types.ListLink, list(atoms)))
    assert len(space) == 11 == space.size()
    assert set(space) == atoms
    assert len(list(space)) == 11  # no duplicates
    assert set(iter(space)) == set(space.get_atoms_by_type(types.Atom))


def test_contains(space, other):
    a = space.add_node(types.ConceptNode, "a")
    assert a in space
    assert a not in other
    assert other.add_node(types.ConceptNode, "a") not in space
    assert "a" not in space
    assert 3 not in space
    assert None not in space
    space.remove(a)
    assert a not in space


def test_get_atoms_by_type_with_and_without_subtypes(space):
    c = space.add_node(types.ConceptNode, "c")
    p = space.add_node(types.PredicateNode, "p")
    i = space.add_link(types.InheritanceLink, [c, c])
    l = space.add_link(types.ListLink, [c, p])
    s = space.add_link(types.SetLink, [c, p])
    assert set(space.get_atoms_by_type(types.ConceptNode)) == {c}
    assert set(space.get_atoms_by_type(types.Node)) == {c, p}
    assert space.get_atoms_by_type(types.Node, subtype=False) == []
    assert space.get_atoms_by_type(types.Node, False) == []
    assert set(space.get_atoms_by_type(types.Link)) == {i, l, s}
    assert set(space.get_atoms_by_type(types.OrderedLink)) == {i, l}
    assert set(space.get_atoms_by_type(types.UnorderedLink)) == {s}
    assert set(space.get_atoms_by_type(types.Atom)) == {c, p, i, l, s}
    assert space.get_atoms_by_type(types.Atom, subtype=False) == []
    assert set(space.get_atoms_by_type(types.ListLink, subtype=False)) == {l}
    assert set(space.get_atoms_by_type("ListLink")) == {l}
    assert space.get_atoms_by_type(types.NumberNode) == []


def test_get_atoms_by_type_returns_fresh_list(space):
    space.add_node(types.ConceptNode, "a")
    got = space.get_atoms_by_type(types.ConceptNode)
    got.clear()
    assert len(space.get_atoms_by_type(types.ConceptNode)) == 1


def test_remove_node_without_incoming(space):
    a = space.add_node(types.ConceptNode, "a")
    assert space.remove(a) is True
    assert a not in space
    assert len(space) == 0
    assert space.get_node(types.ConceptNode, "a") is None
    assert space.remove(a) is False  # already gone


def test_remove_refuses_atom_with_incoming(space):
    a = space.add_node(types.ConceptNode, "a")
    l = space.add_link(types.ListLink, [a])
    assert space.remove(a) is False
    assert a in space and l in space
    assert len(space) == 2


def test_remove_recursive_takes_the_incoming_links(space):
    a = space.add_node(types.ConceptNode, "a")
    b = space.add_node(types.ConceptNode, "b")
    l = space.add_link(types.ListLink, [a, b])
    top = space.add_link(types.ListLink, [l, b])
    keep = space.add_link(types.ListLink, [b])
    assert space.remove(a, recursive=True) is True
    assert a not in space and l not in space and top not in space
    assert b in space and keep in space
    assert set(space) == {b, keep}
    assert b.incoming == [keep]


def test_remove_link_keeps_its_members(space):
    a = space.add_node(types.ConceptNode, "a")
    l = space.add_link(types.ListLink, [a])
    assert space.remove(l) is True
    assert a in space
    assert a.incoming == []


def test_re_adding_a_removed_atom_makes_a_new_one(space):
    a = space.add_node(types.ConceptNode, "a", TruthValue(0.5, 0.5))
    space.remove(a)
    b = space.add_node(types.ConceptNode, "a")
    assert b in space
    assert b.tv == TruthValue()  # values went with the old atom
    assert len(space) == 1


def test_clear(space):
    a = space.add_node(types.ConceptNode, "a")
    space.add_link(types.ListLink, [a])
    space.clear()
    assert len(space) == 0
    assert list(space) == []
    assert space.get_node(types.ConceptNode, "a") is None
    assert a not in space
    # Still usable afterwards.
    assert space.add_node(types.ConceptNode, "a").name == "a"
    assert len(space) == 1


def test_set_value_and_set_truthvalue_on_the_space(space):
    a = space.add_node(types.ConceptNode, "a")
    k = space.add_node(types.PredicateNode, "k")
    space.set_value(a, k, FloatValue([1, 2]))
    assert a.get_value(k) == FloatValue([1, 2])
    space.set_truthvalue(a, TruthValue(0.25, 0.5))
    assert a.tv == TruthValue(0.25, 0.5)


def test_space_equality_and_hash(space, other):
    a = space.add_node(types.ConceptNode, "a")
    assert a.atomspace == space
    assert hash(a.atomspace) == hash(space)
    assert space != other
    assert space != "space"
    assert {space, a.atomspace, other} == {space, other}


def test_space_repr_counts_atoms(space):
    space.add_node(types.ConceptNode, "a")
    space.add_node(types.ConceptNode, "b")
    assert repr(space) == "<AtomSpace of 2 atoms>"


def test_spaces_are_independent(space, other):
    space.add_node(types.ConceptNode, "a")
    assert len(other) == 0
    assert other.get_node(types.ConceptNode, "a") is None


def test_atomspace_is_weak_referenceable():
    import weakref

    s = AtomSpace()
    r = weakref.ref(s)
    assert r() is s


def test_many_atoms(space):
    nodes = [space.add_node(types.ConceptNode, str(i)) for i in range(5000)]
    for i in range(4999):
        space.add_link(types.ListLink, [nodes[i], nodes[i + 1]])
    assert len(space) == 9999
    assert len(space.get_atoms_by_type(types.ListLink)) == 4999
    assert len(nodes[100].incoming) == 2
