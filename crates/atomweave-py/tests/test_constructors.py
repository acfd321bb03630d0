"""Type constructors: ConceptNode("x"), InheritanceLink(a, b, tv=...)."""

import pytest

import atomweave
from atomweave import AtomSpace, TruthValue, TypeConstructor, is_a, type_constructors, types
from atomweave.type_constructors import (
    ConceptNode,
    EvaluationLink,
    InheritanceLink,
    ListLink,
    NumberNode,
    PredicateNode,
    SetLink,
    VariableNode,
)


def test_node_constructor_adds_to_default_space(space):
    a = ConceptNode("a")
    assert a.atomspace == space
    assert a in space
    assert space.get_node(types.ConceptNode, "a") == a
    assert len(space) == 1


def test_link_constructor_with_members_as_arguments(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    l = InheritanceLink(a, b)
    assert l.type == types.InheritanceLink
    assert l.out == [a, b]
    assert space.get_link(types.InheritanceLink, [a, b]) == l


def test_link_constructor_with_one_list(space):
    a, b = ConceptNode("a"), ConceptNode("b")
    assert ListLink([a, b]) == ListLink(a, b)
    assert ListLink((a, b)) == ListLink(a, b)
    assert ListLink([a]).arity == 1


def test_link_constructor_with_no_members(space):
    l = ListLink()
    assert l.arity == 0 and l.type == types.ListLink


def test_single_atom_argument_is_a_member_not_a_list(space):
    inner = ListLink(ConceptNode("a"), ConceptNode("b"))
    outer = ListLink(inner)
    assert outer.arity == 1
    assert outer.out == [inner]


def test_constructor_tv_keyword(space):
    a = ConceptNode("a", tv=TruthValue(0.5, 0.25))
    assert a.tv == TruthValue(0.5, 0.25)
    l = InheritanceLink(a, ConceptNode("b"), tv=TruthValue(0.9, 0.8))
    assert l.tv == TruthValue(0.9, 0.8)


def test_constructor_atomspace_keyword(space, other):
    a = ConceptNode("a", atomspace=other)
    assert a.atomspace == other
    assert a in other and a not in space
    assert len(space) == 0
    l = ListLink(a, atomspace=other)
    assert l in other
    assert len(other) == 2


def test_constructor_copies_members_from_another_space(space, other):
    a = ConceptNode("a", atomspace=other, tv=TruthValue(0.5, 0.5))
    l = ListLink(a)  # default space
    assert l.atomspace == space
    assert l.out[0].atomspace == space
    assert l.out[0].name == "a"
    assert l.out[0].tv == TruthValue(0.5, 0.5)
    assert space.get_node(types.ConceptNode, "a") is not None


def test_unordered_constructor(space):
    a, b, c = ConceptNode("a"), ConceptNode("b"), ConceptNode("c")
    assert SetLink(a, b, c) == SetLink(c, a, b) == SetLink([b, c, a])


def test_nested_constructors(space):
    e = EvaluationLink(PredicateNode("likes"), ListLink(ConceptNode("Ben"), ConceptNode("pizza")))
    assert e.out[0] == PredicateNode("likes")
    assert e.out[1].out == [ConceptNode("Ben"), ConceptNode("pizza")]
    assert len(space) == 5


def test_short_name_constructors(space):
    assert type_constructors.Concept("a") == ConceptNode("a")
    assert type_constructors.Inheritance(ConceptNode("a"), ConceptNode("b")).type == types.InheritanceLink


def test_type_constructor_class(space):
    c = TypeConstructor(types.ConceptNode)
    assert c.type == types.ConceptNode
    assert c("x") == ConceptNode("x")
    assert TypeConstructor("ListLink")(c("x")) == ListLink(ConceptNode("x"))
    assert repr(c) == "<type constructor ConceptNode>"
    assert repr(ConceptNode) == "<type constructor ConceptNode>"


def test_constructors_are_type_constructors():
    assert isinstance(ConceptNode, TypeConstructor)
    assert ConceptNode.type == types.ConceptNode
    assert atomweave.ConceptNode is type_constructors.ConceptNode


def test_every_constructor_makes_its_type():
    s = AtomSpace()
    for name in type_constructors.__all__:
        ctor = getattr(type_constructors, name)
        t = getattr(types, name)
        atom = ctor("1", atomspace=s) if is_a(t, types.Node) else ctor(atomspace=s)
        assert atom.type == t, name
        assert atom.type_name == name, name
        assert atom in s, name


def test_number_node(space):
    n = NumberNode("3")
    assert n.name == "3" and n.type == types.NumberNode


def test_variable_node(space):
    v = VariableNode("$x")
    assert v.name == "$x"
    assert v.type == types.VariableNode


def test_node_constructor_positional_tv(space):
    a = ConceptNode("Apple", TruthValue(1, 0.8))
    assert a.tv == TruthValue(1, 0.8)


def test_sexpr_ast_of_text_is_its_tree(space):
    from atomweave.type_constructors import SexprAst

    tree = SexprAst("(gunk (junk) stunk)")
    gunk, junk, stunk = tree.out
    assert (gunk.name, stunk.name) == ("gunk", "stunk")
    assert junk.out == [SexprAst("junk")]
    # Text, atoms and a list of atoms make the same tree.
    assert SexprAst(gunk, junk, stunk) == tree == SexprAst([gunk, junk, stunk])
    before = len(space)
    with pytest.raises(Exception, match="ends inside a list"):
        SexprAst("(a (b")
    assert len(space) == before
