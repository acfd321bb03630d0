"""Child spaces (frames) and atoms of one space used in another."""

import pytest

from atomweave import AtomSpace, TruthValue, dump, types
from atomweave.type_constructors import ConceptNode, InheritanceLink


def test_child_sees_base_atoms():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)
    assert child.bases == [base]
    assert a in child
    assert len(child) == 1
    assert child.get_node(types.ConceptNode, "a") == a


def test_new_child_is_the_same_as_constructor():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = base.new_child()
    assert child.bases == [base]
    assert a in child
    assert child != base


def test_child_changes_stay_in_child():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)
    b = child.add_node(types.ConceptNode, "b")
    l = child.add_link(types.ListLink, [a, b])
    assert b in child and l in child
    assert b not in base and l not in base
    assert len(base) == 1 and len(child) == 3
    assert base.get_node(types.ConceptNode, "b") is None
    assert set(child.get_atoms_by_type(types.ConceptNode)) == {a, b}
    assert base.get_atoms_by_type(types.ConceptNode) == [a]


def test_base_atom_seen_through_child_equals_itself():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a", TruthValue(0.5, 0.5))
    child = AtomSpace(base)
    a2 = child.add_node(types.ConceptNode, "a")
    assert a2 == a
    assert hash(a2) == hash(a)
    assert a2.tv == TruthValue(0.5, 0.5)
    assert len(child) == 1


def test_incoming_seen_from_the_child():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)
    l = child.add_link(types.ListLink, [a])
    a_in_child = child.get_node(types.ConceptNode, "a")
    assert a_in_child.incoming == [l]
    assert l.out[0].atomspace == child


def test_removing_in_child_masks_only_there():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)
    assert child.remove(a) is True
    assert a not in child
    assert a in base
    assert len(child) == 0 and len(base) == 1
    assert child.get_node(types.ConceptNode, "a") is None


def test_recursive_remove_in_child():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a")
    l = base.add_link(types.ListLink, [a])
    child = AtomSpace(base)
    assert child.remove(a, recursive=True) is True
    assert a not in child and l not in child
    assert a in base and l in base


def test_grandchild():
    root = AtomSpace()
    a = root.add_node(types.ConceptNode, "a")
    mid = root.new_child()
    b = mid.add_node(types.ConceptNode, "b")
    leaf = mid.new_child()
    c = leaf.add_node(types.ConceptNode, "c")
    assert {a, b, c} == set(leaf)
    assert {a, b} == set(mid)
    assert {a} == set(root)
    assert leaf.bases == [mid]
    assert leaf.bases[0].bases == [root]


def test_child_of_two_bases_of_one_root():
    root = AtomSpace()
    r = root.add_node(types.ConceptNode, "r")
    b1, b2 = root.new_child(), root.new_child()
    x = b1.add_node(types.ConceptNode, "x")
    y = b2.add_node(types.ConceptNode, "y")
    child = AtomSpace(b1, b2)
    assert child.bases == [b1, b2]
    assert x in child and y in child and r in child
    assert len(child) == 3
    l = child.add_link(types.ListLink, [x, y])
    assert l.out == [x, y]
    assert l not in b1 and l not in b2


def test_new_roots_join_as_bases_of_one_child():
    a, b = AtomSpace(), AtomSpace()
    both = AtomSpace(a, b)
    x = a.add_node(types.ConceptNode, "in a")
    y = b.add_node(types.ConceptNode, "in b")
    assert sorted(n.name for n in both.get_atoms_by_type(types.ConceptNode)) == ["in a", "in b"]
    assert [n.name for n in a.get_atoms_by_type(types.ConceptNode)] == ["in a"]
    assert x in both and y in both


def test_bases_from_roots_that_both_hold_atoms_are_refused():
    a, b = AtomSpace(), AtomSpace()
    a.add_node(types.ConceptNode, "x")
    b.add_node(types.ConceptNode, "y")
    with pytest.raises(RuntimeError, match="root"):
        AtomSpace(a, b)


def test_values_in_child_do_not_change_base():
    base = AtomSpace()
    a = base.add_node(types.ConceptNode, "a", TruthValue(0.5, 0.5))
    child = AtomSpace(base)
    child.set_truthvalue(a, TruthValue(0.1, 0.2))
    assert child.get_node(types.ConceptNode, "a").tv == TruthValue(0.1, 0.2)
    assert base.get_node(types.ConceptNode, "a").tv == TruthValue(0.5, 0.5)


def test_changes_in_base_are_seen_by_child():
    base = AtomSpace()
    child = AtomSpace(base)
    a = base.add_node(types.ConceptNode, "late")
    assert a in child
    assert child.get_node(types.ConceptNode, "late") == a


def test_dump_of_a_child_space():
    base = AtomSpace()
    base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)
    child.add_node(types.ConceptNode, "b")
    text = dump(child)
    assert '(ConceptNode "a")' in text and '(ConceptNode "b")' in text


def test_dump_of_a_space_with_a_child():
    base = AtomSpace()
    base.add_node(types.ConceptNode, "a")
    child = AtomSpace(base)  # noqa: F841  (kept alive on purpose)
    assert dump(base).strip() == '(ConceptNode "a")'


# --- atoms of another space are copied by content ---------------------------

def test_link_of_foreign_atoms_copies_them(space, other):
    a = other.add_node(types.ConceptNode, "a", TruthValue(0.5, 0.25))
    b = other.add_node(types.ConceptNode, "b")
    inner = other.add_link(types.ListLink, [a, b])
    l = space.add_link(types.ListLink, [inner, a])
    assert l.atomspace == space
    copied = l.out[0]
    assert copied.atomspace == space
    assert copied != inner  # another space, another atom
    assert [x.name for x in copied.out] == ["a", "b"]
    assert space.get_node(types.ConceptNode, "a").tv == TruthValue(0.5, 0.25)
    assert len(space) == 4  # a, b, inner copy, l
    assert len(other) == 3  # untouched
    assert a.incoming == [inner]


def test_foreign_key_and_value_atoms_are_copied(space, other):
    a = space.add_node(types.ConceptNode, "a")
    key = other.add_node(types.PredicateNode, "k")
    val = other.add_node(types.ConceptNode, "v")
    a.set_value(key, val)
    got = a.get_value(other.add_node(types.PredicateNode, "k"))
    assert got.atomspace == space
    assert got.name == "v"
    assert space.get_node(types.PredicateNode, "k") is not None


def test_set_tv_through_space_with_foreign_atom(space, other):
    a = other.add_node(types.ConceptNode, "a")
    space.set_truthvalue(a, TruthValue(0.3, 0.3))
    assert space.get_node(types.ConceptNode, "a").tv == TruthValue(0.3, 0.3)
    assert a.tv == TruthValue()  # the original is unchanged


def test_constructor_into_other_space_with_default_space_members(space, other):
    a = ConceptNode("a")
    l = InheritanceLink(a, ConceptNode("b"), atomspace=other)
    assert l.atomspace == other
    assert other.get_node(types.ConceptNode, "a") is not None
    assert len(space) == 2 and len(other) == 3


def test_get_link_with_foreign_members_finds_local_copy(space, other):
    a = space.add_node(types.ConceptNode, "a")
    l = space.add_link(types.ListLink, [a])
    foreign_a = other.add_node(types.ConceptNode, "a")
    assert space.get_link(types.ListLink, [foreign_a]) == l


def test_remove_of_a_foreign_atom_is_false(space, other):
    a = other.add_node(types.ConceptNode, "a")
    assert space.remove(a) is False
    assert len(space) == 0
