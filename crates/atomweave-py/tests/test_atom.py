"""Atom: properties, equality, hashing, ordering, repr, incoming sets."""

import pytest

from atomweave import Atom, AtomSpace, TruthValue, types
from atomweave.type_constructors import ConceptNode, EvaluationLink, InheritanceLink, ListLink, PredicateNode, SetLink


def test_node_properties(space):
    a = ConceptNode("cat")
    assert isinstance(a, Atom)
    assert a.name == "cat"
    assert a.type == types.ConceptNode
    assert a.type_name == "ConceptNode"
    assert a.is_node() and not a.is_link()
    assert a.out == []
    assert a.arity == 0
    assert a.atomspace == space
    assert isinstance(a.handle, int)


def test_link_properties(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    l = InheritanceLink(a, b)
    assert l.name == ""
    assert l.type == types.InheritanceLink
    assert l.type_name == "InheritanceLink"
    assert l.is_link() and not l.is_node()
    assert l.out == [a, b]
    assert l.arity == 2
    assert all(isinstance(x, Atom) for x in l.out)
    assert l.out[0].atomspace == space


def test_unicode_and_odd_names(space):
    for name in ["", "héllo wörld", "猫", 'quote"inside', "back\\slash", "new\nline", "tab\t", "(paren)", ";semi"]:
        a = ConceptNode(name)
        assert a.name == name
        assert space.get_node(types.ConceptNode, name) == a


def test_handles_are_stable_and_distinct(space):
    a = ConceptNode("a")
    b = ConceptNode("b")
    assert a.handle != b.handle
    assert ConceptNode("a").handle == a.handle


def test_equal_atoms_compare_and_hash_equal(space):
    a1 = ConceptNode("a")
    a2 = space.add_node(types.ConceptNode, "a")
    a3 = space.get_node(types.ConceptNode, "a")
    assert a1 is not a2
    assert a1 == a2 == a3
    assert not (a1 != a2)
    assert hash(a1) == hash(a2) == hash(a3)
    l1 = ListLink(a1, ConceptNode("b"))
    l2 = space.add_link(types.ListLink, [a2, space.add_node(types.ConceptNode, "b")])
    assert l1 == l2 and hash(l1) == hash(l2)


def test_atoms_in_sets_and_dicts(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    s = {a, b, ConceptNode("a"), space.get_node(types.ConceptNode, "b")}
    assert len(s) == 2
    d = {a: 1, b: 2}
    assert d[ConceptNode("a")] == 1
    assert d[space.get_node("ConceptNode", "b")] == 2
    assert ConceptNode("a") in s
    assert ConceptNode("c") not in s


def test_different_atoms_are_unequal(space):
    assert ConceptNode("a") != ConceptNode("b")
    assert ConceptNode("a") != PredicateNode("a")
    assert ListLink(ConceptNode("a")) != SetLink(ConceptNode("a"))


def test_atom_is_not_equal_to_other_objects(space):
    a = ConceptNode("a")
    assert a != "a"
    assert a != 1
    assert a != None  # noqa: E711
    assert (a == "a") is False


def test_same_content_in_unrelated_spaces_is_not_the_same_atom(space, other):
    a = space.add_node(types.ConceptNode, "a")
    b = other.add_node(types.ConceptNode, "a")
    assert a != b


def test_atoms_sort(space):
    atoms = [ConceptNode(str(i)) for i in range(20)]
    shuffled = atoms[10:] + atoms[:10]
    assert sorted(shuffled) == sorted(atoms)
    assert len(sorted(shuffled)) == 20
    a, b = atoms[0], atoms[1]
    assert (a < b) != (b < a)
    assert a <= a and a >= a


def test_atoms_sort_by_content_so_two_spaces_list_alike(space, other):
    def fill(s, names):
        for n in names:
            c = s.add_node(types.ConceptNode, n)
            s.add_link(types.ListLink, [c, s.add_node(types.PredicateNode, "p")])
    fill(space, ["b", "a", "c"])
    fill(other, ["c", "b", "a"])
    assert [str(x) for x in sorted(space)] == [str(x) for x in sorted(other)]
    assert space.add_node(types.ConceptNode, "a") < space.add_node(types.ConceptNode, "b")
    assert other.add_node(types.ConceptNode, "b") > space.add_node(types.ConceptNode, "a"), "across spaces too"
    assert space.add_node(types.ConceptNode, "z") < space.add_link(types.ListLink, []), "type names first"


def test_incoming(space):
    a, b, c = ConceptNode("a"), ConceptNode("b"), ConceptNode("c")
    ab = InheritanceLink(a, b)
    ac = InheritanceLink(a, c)
    la = ListLink(a, a)
    assert set(a.incoming) == {ab, ac, la}
    assert len(a.incoming) == 3  # a link holding the atom twice is there once
    assert b.incoming == [ab]
    assert ab.incoming == []
    top = ListLink(ab)
    assert ab.incoming == [top]
    assert set(a.incoming) == {ab, ac, la}  # only direct holders


def test_incoming_by_type(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    i = InheritanceLink(a, b)
    l = ListLink(a, b)
    e = EvaluationLink(PredicateNode("p"), l)
    s = SetLink(a)
    assert a.incoming_by_type(types.InheritanceLink) == [i]
    assert a.incoming_by_type(types.ListLink) == [l]
    assert a.incoming_by_type("SetLink") == [s]
    assert a.incoming_by_type(types.EvaluationLink) == []
    assert l.incoming_by_type(types.EvaluationLink) == [e]
    assert b.incoming_by_type(types.SetLink) == []
    # Upstream's incoming-by-type is by exact type.
    assert a.incoming_by_type(types.Link) == []


def test_incoming_follows_removal(space):
    a = ConceptNode("a")
    l1 = ListLink(a)
    l2 = SetLink(a)
    space.remove(l1)
    assert a.incoming == [l2]
    assert a.incoming_by_type(types.ListLink) == []


def test_tv_get_set(space):
    a = ConceptNode("a")
    assert a.tv == TruthValue()
    assert a.tv.mean == 1.0 and a.tv.confidence == 0.0
    a.tv = TruthValue(0.3, 0.4)
    assert a.tv == TruthValue(0.3, 0.4)
    assert ConceptNode("a").tv == TruthValue(0.3, 0.4)  # on the atom, not the Python object
    a.tv = TruthValue()
    assert a.tv == TruthValue()


def test_repr_is_atomese(space):
    a = ConceptNode("cat")
    assert repr(a) == '(Concept "cat")'
    assert str(a) == repr(a)
    a.tv = TruthValue(0.5, 0.25)
    assert repr(a) == '(Concept "cat" (stv 0.5 0.25))'


def test_repr_of_an_atom_too_large_to_print_raises(space):
    # Doubling 40 times: 2^40 leaves in text, refused instead of printed.
    dag = ConceptNode("a")
    for _ in range(40):
        dag = ListLink(dag, dag)
    for show in (repr, str, Atom.long_string):
        with pytest.raises(RuntimeError, match="prints to more than 256 MiB"):
            show(dag)


def test_repr_of_nested_link_is_upstream_repl_form(space):
    e = EvaluationLink(
        PredicateNode("breathe"),
        ListLink(ConceptNode("birds", tv=TruthValue(0.5, 0.1)), ConceptNode("air")),
        tv=TruthValue(0.9, 0.8),
    )
    assert repr(e) == (
        '(Evaluation (stv 0.9 0.8)\n'
        '  (Predicate "breathe")\n'
        '  (List\n'
        '    (Concept "birds" (stv 0.5 0.1))\n'
        '    (Concept "air")))'
    )


def test_repr_escapes_strings(space):
    a = ConceptNode('say "hi"\\')
    assert repr(a) == '(Concept "say \\"hi\\"\\\\")'


def test_long_string_is_wire_form(space):
    e = EvaluationLink(PredicateNode("breathe"), ListLink(ConceptNode("birds"), ConceptNode("air")))
    assert e.long_string() == (
        '(EvaluationLink (PredicateNode "breathe")(ListLink (ConceptNode "birds")(ConceptNode "air")))'
    )
    c = ConceptNode("c", tv=TruthValue(0.5, 0.1))
    assert c.long_string() == (
        '(ConceptNode "c" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.5 0.1))))'
    )


def test_atom_atomspace_property(space, other):
    a = other.add_node(types.ConceptNode, "a")
    assert a.atomspace == other
    assert a.atomspace != space
    assert isinstance(a.atomspace, AtomSpace)


def test_atom_cannot_be_made_directly():
    with pytest.raises(TypeError):
        Atom()


def test_atom_is_immutable(space):
    a = ConceptNode("a")
    with pytest.raises(AttributeError):
        a.name = "b"
    with pytest.raises(AttributeError):
        a.out = []
    assert a.name == "a"
