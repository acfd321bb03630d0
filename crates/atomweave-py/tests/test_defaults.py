"""The default AtomSpace: set/get/push/pop_default_atomspace."""

import threading

import pytest

from atomweave import (
    AtomSpace,
    get_default_atomspace,
    load_str,
    pop_default_atomspace,
    push_default_atomspace,
    set_default_atomspace,
    types,
)
from atomweave.type_constructors import ConceptNode


def test_there_is_always_a_default(keep_default):
    d = get_default_atomspace()
    assert isinstance(d, AtomSpace)
    assert get_default_atomspace() == d  # the same one each time


def test_set_default_atomspace(keep_default):
    s = AtomSpace()
    set_default_atomspace(s)
    assert get_default_atomspace() == s
    a = ConceptNode("in-s")
    assert a.atomspace == s and a in s
    assert keep_default.get_node(types.ConceptNode, "in-s") is None


def test_set_default_replaces_the_innermost(keep_default):
    s1, s2 = AtomSpace(), AtomSpace()
    push_default_atomspace(s1)
    set_default_atomspace(s2)
    assert get_default_atomspace() == s2
    assert pop_default_atomspace() == s2
    assert get_default_atomspace() == keep_default


def test_push_and_pop_explicit_space(keep_default):
    s = AtomSpace()
    assert push_default_atomspace(s) == s
    assert get_default_atomspace() == s
    ConceptNode("pushed")
    assert s.get_node(types.ConceptNode, "pushed") is not None
    assert pop_default_atomspace() == s
    assert get_default_atomspace() == keep_default
    assert keep_default.get_node(types.ConceptNode, "pushed") is None


def test_push_without_argument_makes_a_child(keep_default):
    base = AtomSpace()
    set_default_atomspace(base)
    a = ConceptNode("in-base")
    child = push_default_atomspace()
    assert child != base
    assert child.bases == [base]
    assert get_default_atomspace() == child
    b = ConceptNode("in-child")
    assert b in child and a in child
    assert base.get_node(types.ConceptNode, "in-child") is None
    assert len(base) == 1 and len(child) == 2
    assert pop_default_atomspace() == child
    assert get_default_atomspace() == base


def test_nested_pushes(keep_default):
    spaces = [AtomSpace() for _ in range(3)]
    for s in spaces:
        push_default_atomspace(s)
    for s in reversed(spaces):
        assert get_default_atomspace() == s
        assert pop_default_atomspace() == s
    assert get_default_atomspace() == keep_default


def test_load_str_uses_the_default(keep_default):
    s = AtomSpace()
    push_default_atomspace(s)
    [a] = load_str('(Concept "loaded")')
    assert a.atomspace == s
    assert len(s) == 1


def test_the_default_is_shared_with_threads_that_set_none(keep_default):
    s = AtomSpace()
    set_default_atomspace(s)
    seen = []
    t = threading.Thread(target=lambda: seen.append(ConceptNode("from-thread")))
    t.start()
    t.join()
    assert seen and seen[0].atomspace == s
    assert s.get_node(types.ConceptNode, "from-thread") is not None


def test_push_in_one_thread_does_not_change_another_threads_default(keep_default):
    main_space = AtomSpace()
    set_default_atomspace(main_space)
    pushed = threading.Event()
    done = threading.Event()

    def other_thread():
        push_default_atomspace(AtomSpace())
        pushed.set()
        done.wait(5)
        pop_default_atomspace()

    t = threading.Thread(target=other_thread)
    t.start()
    pushed.wait(5)
    try:
        assert get_default_atomspace() == main_space
    finally:
        done.set()
        t.join()
