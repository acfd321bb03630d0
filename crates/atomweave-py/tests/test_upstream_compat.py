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
