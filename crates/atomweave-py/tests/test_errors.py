"""Errors: the exception type a user expects, with a message that helps."""

import pytest

from atomweave import (
    AtomSpace,
    FloatValue,
    LinkValue,
    StringValue,
    TruthValue,
    TypeConstructor,
    get_type_name,
    is_a,
    load_str,
    types,
)
from atomweave.type_constructors import ConceptNode, ListLink, PredicateNode


# --- TypeError: the wrong kind of thing --------------------------------------

def test_add_node_with_link_type_is_type_error(space):
    with pytest.raises(TypeError, match="Link"):
        space.add_node(types.Link, "x")
    with pytest.raises(TypeError):
        space.add_node(types.ListLink, "x")
    assert len(space) == 0


def test_add_link_with_node_type_is_type_error(space):
    a = ConceptNode("a")
    with pytest.raises(TypeError, match="ConceptNode"):
        space.add_link(types.ConceptNode, [a])
    with pytest.raises(TypeError):
        space.add_link(types.Node, [a])
    assert len(space) == 1


def test_add_with_name_for_link_type_is_type_error(space):
    with pytest.raises(TypeError):
        space.add(types.ListLink, name="x")


@pytest.mark.parametrize("bad", [3, None, b"bytes", ["x"]])
def test_node_name_must_be_str(space, bad):
    with pytest.raises(TypeError):
        space.add_node(types.ConceptNode, bad)
    with pytest.raises(TypeError):
        ConceptNode(bad)


@pytest.mark.parametrize("bad", [3.5, None, [1], object()])
def test_type_argument_of_wrong_kind_is_type_error(space, bad):
    with pytest.raises(TypeError, match="type"):
        space.add_node(bad, "x")
    with pytest.raises(TypeError):
        space.get_atoms_by_type(bad)


def test_outgoing_must_be_atoms(space):
    with pytest.raises(TypeError, match="Atom"):
        space.add_link(types.ListLink, [1, 2])
    with pytest.raises(TypeError, match="outgoing"):
        space.add_link(types.ListLink, 3)
    with pytest.raises(TypeError):
        space.add_link(types.ListLink, [ConceptNode("a"), "b"])
    with pytest.raises(TypeError):
        ListLink("a")
    with pytest.raises(TypeError):
        ListLink(1)
    assert len(space) == 1  # only "a"; no partial link


def test_node_constructor_argument_count(space):
    with pytest.raises(TypeError, match="name"):
        ConceptNode()
    with pytest.raises(TypeError):
        ConceptNode("a", "b")


def test_tv_must_be_a_truth_value(space):
    a = ConceptNode("a")
    with pytest.raises(TypeError):
        a.tv = 0.5
    with pytest.raises(TypeError):
        a.tv = FloatValue([1, 0])
    with pytest.raises(TypeError):
        ConceptNode("b", tv=(0.5, 0.5))
    with pytest.raises(TypeError):
        space.add_node(types.ConceptNode, "c", tv="bad")
    with pytest.raises(TypeError):
        space.set_truthvalue(a, 1)
    assert a.tv == TruthValue()


def test_keys_must_be_atoms(space):
    a = ConceptNode("a")
    with pytest.raises(TypeError, match="Atom"):
        a.set_value("k", FloatValue(1))
    with pytest.raises(TypeError):
        a.get_value(3)
    with pytest.raises(TypeError):
        space.set_value(a, "k", FloatValue(1))


@pytest.mark.parametrize("bad", [{"a": 1}, [1, "a"], object(), 3, "str", (1.0, 2.0)])
def test_values_of_wrong_kind_are_type_error(space, bad):
    a, k = ConceptNode("a"), PredicateNode("k")
    with pytest.raises(TypeError, match="value"):
        a.set_value(k, bad)
    assert a.get_value(k) is None


def test_value_constructors_check_their_contents(space):
    with pytest.raises(TypeError, match="FloatValue"):
        FloatValue("abc")
    with pytest.raises(TypeError):
        FloatValue(["a"])
    with pytest.raises(TypeError, match="StringValue"):
        StringValue(3)
    with pytest.raises(TypeError):
        StringValue([1, 2])
    with pytest.raises(TypeError, match="LinkValue"):
        LinkValue([1])
    with pytest.raises(TypeError):
        LinkValue(5)
    with pytest.raises(TypeError):
        TruthValue("a")


def test_atomspace_bases_must_be_spaces():
    with pytest.raises(TypeError):
        AtomSpace(3)
    with pytest.raises(TypeError):
        AtomSpace("base")


def test_remove_needs_an_atom(space):
    with pytest.raises(TypeError):
        space.remove("x")


def test_load_str_needs_text():
    with pytest.raises(TypeError):
        load_str(3, AtomSpace())


# --- ValueError: unknown names, bad values, bad text -------------------------

def test_unknown_type_name_is_value_error(space):
    with pytest.raises(ValueError, match="NoSuchType"):
        space.add("NoSuchType", "x")
    with pytest.raises(ValueError):
        space.add("NoSuchLink", out=[])
    with pytest.raises(ValueError):
        space.get_atoms_by_type("NoSuchType")
    with pytest.raises(ValueError):
        ConceptNode("a").incoming_by_type("NoSuchType")
    with pytest.raises(ValueError):
        TypeConstructor("NoSuchType")
    with pytest.raises(ValueError):
        is_a("NoSuchType", "Node")
    with pytest.raises(ValueError):
        get_type_name("NoSuchType")


@pytest.mark.parametrize("bad", [99999, -1, 65536])
def test_unknown_type_number_is_value_error(space, bad):
    with pytest.raises(ValueError, match=str(bad)):
        space.add_node(bad, "x")
    # Upstream's name server names no type "" rather than raising.
    assert get_type_name(bad) == ""


def test_add_with_both_name_and_out_is_value_error(space):
    with pytest.raises(ValueError, match="not both"):
        space.add(types.ConceptNode, "a", [ConceptNode("b")])


def test_add_node_without_name_is_value_error(space):
    with pytest.raises(ValueError):
        space.add(types.ConceptNode)


def test_malformed_atomese_is_value_error():
    for text in ['(ConceptNode "x"', '(Bogus "x")', ")", '(ListLink "x")']:
        with pytest.raises(ValueError):
            load_str(text, AtomSpace())


# --- RuntimeError: atoms that are gone ---------------------------------------

@pytest.fixture
def gone(space):
    a = ConceptNode("gone")
    assert space.remove(a)
    return a


def test_removed_atom_tv_is_runtime_error(gone):
    with pytest.raises(RuntimeError, match="no longer"):
        gone.tv


def test_removed_atom_type_is_runtime_error(gone):
    with pytest.raises(RuntimeError):
        gone.type
    with pytest.raises(RuntimeError):
        gone.type_name


def test_removed_atom_set_tv_is_runtime_error(gone):
    with pytest.raises(RuntimeError):
        gone.tv = TruthValue(0.5, 0.5)


def test_removed_atom_set_value_is_runtime_error(gone):
    with pytest.raises(RuntimeError):
        gone.set_value(PredicateNode("k"), FloatValue(1))


def test_removed_atom_is_neither_node_nor_link_nor_in_space(gone, space):
    assert not gone.is_node()
    assert not gone.is_link()
    assert gone not in space
    assert gone.incoming == []


def test_removed_atom_repr_does_not_raise(gone):
    assert "invalid" in repr(gone)


def test_removed_atom_still_hashes_and_compares(gone, space):
    assert gone == gone
    assert hash(gone) == hash(gone)
    assert gone != ConceptNode("gone")  # a new atom, a new handle


def test_removed_atom_in_new_link_is_runtime_error(gone, space):
    with pytest.raises(RuntimeError):
        space.add_link(types.ListLink, [gone])
    assert space.get_atoms_by_type(types.ListLink) == []


def test_removed_atom_name_is_runtime_error(gone):
    with pytest.raises(RuntimeError):
        gone.name


def test_removed_atom_get_value_is_runtime_error(gone):
    with pytest.raises(RuntimeError):
        gone.get_value(PredicateNode("k"))


def test_atom_of_cleared_space_is_gone(space):
    a = ConceptNode("a")
    space.clear()
    with pytest.raises(RuntimeError):
        a.tv
