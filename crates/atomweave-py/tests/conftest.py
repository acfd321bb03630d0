"""Shared fixtures for the atomweave Python test suite.

The default AtomSpace is shared state (a stack per thread over a
process-wide default): every fixture that touches it puts it back as it
found it, so tests do not leak atoms (or default spaces) into each other.
"""

import os

import pytest

from atomweave import (
    AtomSpace,
    ConceptNode,
    FloatValue,
    InheritanceLink,
    PredicateNode,
    TruthValue,
    barrier,
    cog_close,
    cog_open,
    fetch_atom,
    fetch_incoming_set,
    get_default_atomspace,
    pop_default_atomspace,
    push_default_atomspace,
    set_default_atomspace,
    store_atom,
    types,
)


# The portable module (the wheel: no Scheme, no benchmark pieces) is tested
# with ATOMWEAVE_PORTABLE=1; without it the suite expects the development
# package, and a test that needs Scheme fails where Scheme is missing.
PORTABLE = os.environ.get("ATOMWEAVE_PORTABLE") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "scheme: needs the Scheme-enabled module (skipped with ATOMWEAVE_PORTABLE=1)")


def pytest_collection_modifyitems(config, items):
    if PORTABLE:
        skip = pytest.mark.skip(reason="the portable module holds no Scheme")
        for item in items:
            if "scheme" in item.keywords:
                item.add_marker(skip)


def _restore_default(before):
    # Pop what the test pushed in this thread, then put the default back.
    for _ in range(64):
        if get_default_atomspace() == before:
            return
        try:
            pop_default_atomspace()
        except RuntimeError:
            break
    set_default_atomspace(before)


@pytest.fixture
def space():
    """A fresh AtomSpace, also the default one for the test's duration."""
    before = get_default_atomspace()
    s = AtomSpace()
    push_default_atomspace(s)
    yield s
    _restore_default(before)


@pytest.fixture
def other():
    """A second, unrelated AtomSpace (never the default)."""
    return AtomSpace()


@pytest.fixture
def animals(space):
    """Ben and Linas are human, Fido is a dog, humans are animals."""
    from atomweave.type_constructors import ConceptNode, InheritanceLink

    human = ConceptNode("human")
    InheritanceLink(ConceptNode("Ben"), human)
    InheritanceLink(ConceptNode("Linas"), human)
    InheritanceLink(ConceptNode("Fido"), ConceptNode("dog"))
    InheritanceLink(human, ConceptNode("animal"))
    return space


@pytest.fixture
def keep_default():
    """Restores the default-space stack after a test that plays with it."""
    before = get_default_atomspace()
    yield before
    _restore_default(before)



@pytest.fixture
def storage_round_trip(space):
    """Upstream's store-then-fetch script through a StorageNode: `make(url)`
    (or `make(url, atomspace=...)`) names the node type. Stores a link and
    its member's truth value and FloatValue (running `also()` before the
    barrier, for a store's own calls), then fetches them into a fresh space
    through a new node and checks them. Returns that space and its node,
    still open."""

    def run(make, url, also=lambda: None):
        sn = make(url)
        cog_open(sn)
        a = ConceptNode("Äpfel", TruthValue(1, 0.8))
        ab = InheritanceLink(a, ConceptNode("Berry"), tv=TruthValue(0.5, 0.5))
        a.set_value(PredicateNode("weight"), FloatValue([1.5, 2.5]))
        store_atom(ab)
        store_atom(a)
        also()
        barrier()
        cog_close(sn)

        fresh = AtomSpace()
        sn2 = make(url, atomspace=fresh)
        cog_open(sn2)
        a2 = fresh.add_node(types.ConceptNode, "Äpfel")
        fetch_atom(a2, sn2)
        assert a2.tv == TruthValue(1, 0.8)
        assert a2.get_value(fresh.get_node(types.PredicateNode, "weight")) == FloatValue([1.5, 2.5])
        assert fetch_incoming_set(a2, False, sn2) == 1
        b2 = fresh.get_node(types.ConceptNode, "Berry")
        assert fresh.get_link(types.InheritanceLink, [a2, b2]).tv == TruthValue(0.5, 0.5)
        return fresh, sn2

    return run
