"""py: grounded procedures: ExecutionOutputLink and EvaluationLink call
Python functions by name, at the top of execute_atom and inside queries."""

import __main__

import pytest

from atomweave import (AtomSpace, ConceptNode, EvaluationLink, ExecutionOutputLink, FloatValue, GetLink, GroundedPredicateNode,
                       GroundedSchemaNode, ListLink, MemberLink, AndLink, TruthValue, VariableNode, evaluate_atom, execute_atom,
                       get_default_atomspace, types)


def _pair(a, b):
    return ListLink(a, b)


def _is_long(atom):
    ConceptNode("made during the call")
    return TruthValue(1, 1) if len(atom.name) > 3 else TruthValue(0, 1)


def _boom(atom):
    raise ValueError("the callback gave up")


_ctrl_c_calls = []


def _ctrl_c(atom):
    _ctrl_c_calls.append(atom)
    raise KeyboardInterrupt


class _Namespace:
    @staticmethod
    def mean(*atoms):
        return FloatValue([len(atoms)])


@pytest.fixture(autouse=True)
def procedures():
    names = {"pair": _pair, "is_long": _is_long, "boom": _boom, "ctrl_c": _ctrl_c, "ns": _Namespace, "nothing": lambda: None, "number": lambda: 42}
    for k, v in names.items():
        setattr(__main__, k, v)
    yield
    for k in names:
        delattr(__main__, k)


def test_a_schema_is_called_with_the_list_members(space):
    got = execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py:pair"), ListLink(ConceptNode("a"), ConceptNode("b"))))
    assert got == ListLink(ConceptNode("a"), ConceptNode("b"))


def test_a_function_of_a_submodule_not_yet_imported(space):
    import sys

    import opencog

    # As if never imported: not in sys.modules, not the package's attribute.
    sys.modules.pop("opencog.atomspace", None)
    if hasattr(opencog, "atomspace"):
        del opencog.atomspace
    got = evaluate_atom(space, EvaluationLink(GroundedPredicateNode("py:opencog.atomspace.createTruthValue"), ListLink()))
    assert got == TruthValue(1, 1)


def test_a_submodule_that_fails_to_import_says_why(space, tmp_path, monkeypatch):
    pkg = tmp_path / "brokenpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bad.py").write_text("import no_such_module_here\ndef f(a):\n    return a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuntimeError, match="importing brokenpkg.bad: .*no_such_module_here"):
        execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py:brokenpkg.bad.f"), ListLink(ConceptNode("a"))))
    with pytest.raises(RuntimeError, match="not found in module"):
        execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py:brokenpkg.absent.f"), ListLink(ConceptNode("a"))))


def test_attributes_and_values(space):
    got = execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py: ns.mean"), ListLink(ConceptNode("a"), ConceptNode("b"))))
    assert got == FloatValue([2])


def test_a_predicate_gives_its_truth_value(space):
    assert evaluate_atom(space, EvaluationLink(GroundedPredicateNode("py:is_long"), ListLink(ConceptNode("abcdef")))) == TruthValue(1, 1)
    assert evaluate_atom(space, EvaluationLink(GroundedPredicateNode("py:is_long"), ConceptNode("ab"))) == TruthValue(0, 1)


def test_during_a_call_the_default_space_is_the_one_it_runs_in(space):
    other = AtomSpace()
    call = other.add_link(types.EvaluationLink, [other.add_node(types.GroundedPredicateNode, "py:is_long"), other.add_node(types.ConceptNode, "abcdef")])
    evaluate_atom(other, call)
    assert other.is_node_in_atomspace(types.ConceptNode, "made during the call")
    assert not space.is_node_in_atomspace(types.ConceptNode, "made during the call")
    assert get_default_atomspace() is not other


@pytest.mark.parametrize("name, message", [
    ("py:absent", "not found in module"),
    ("py:boom", "the callback gave up"),
    ("py:nothing", "did not return Atomese"),
    ("py:number", "did not return Atomese"),
    ("py:pair", "missing 1 required positional argument"),
])
def test_failures_are_runtime_errors_with_the_reason(space, name, message):
    with pytest.raises(RuntimeError, match=message):
        execute_atom(space, ExecutionOutputLink(GroundedSchemaNode(name), ListLink(*([ConceptNode("a")] if name in ("py:pair", "py:boom") else []))))


def test_ctrl_c_in_a_callback_stops_the_query_with_keyboard_interrupt(space):
    # Not a RuntimeError the caller's `except Exception` would swallow: the
    # query stops at the first call and the caller gets KeyboardInterrupt.
    with pytest.raises(KeyboardInterrupt):
        execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py:ctrl_c"), ListLink(ConceptNode("a"))))
    for i in range(5):
        MemberLink(ConceptNode(f"m{i}"), ConceptNode("set"))
    _ctrl_c_calls.clear()
    with pytest.raises(KeyboardInterrupt):
        execute_atom(space, GetLink(AndLink(
            MemberLink(VariableNode("$x"), ConceptNode("set")),
            EvaluationLink(GroundedPredicateNode("py:ctrl_c"), ListLink(VariableNode("$x"))))))
    assert len(_ctrl_c_calls) == 1


def test_a_predicate_filters_a_query_and_what_it_adds_is_scratch(space):
    for name in ("ab", "abcdef", "xyzxyz"):
        MemberLink(ConceptNode(name), ConceptNode("set"))
    got = execute_atom(space, GetLink(AndLink(
        MemberLink(VariableNode("$x"), ConceptNode("set")),
        EvaluationLink(GroundedPredicateNode("py:is_long"), ListLink(VariableNode("$x"))))))
    assert sorted(a.name for a in got.out) == ["abcdef", "xyzxyz"]
    assert not space.is_node_in_atomspace(types.ConceptNode, "made during the call")


def test_a_predicate_called_from_a_query_split_across_threads(space):
    # Enough candidates (over 256) that the search is split over the rayon
    # pool: each thread calls back into Python (taking the GIL) and sees its
    # own frame.
    n = 1000
    for i in range(n):
        MemberLink(ConceptNode(f"item {i}"), ConceptNode("set"))
    got = execute_atom(space, GetLink(AndLink(
        MemberLink(VariableNode("$x"), ConceptNode("set")),
        EvaluationLink(GroundedPredicateNode("py:is_long"), ListLink(VariableNode("$x"))))))
    assert len(got.out) == n
    assert not space.is_node_in_atomspace(types.ConceptNode, "made during the call")


def test_a_schema_that_adds_atoms_adds_them_to_the_space_it_runs_in(space):
    def adds(atom):
        return MemberLink(atom, ConceptNode("added by the schema"))
    __main__.adds = adds
    try:
        got = execute_atom(space, ExecutionOutputLink(GroundedSchemaNode("py:adds"), ListLink(ConceptNode("x"))))
    finally:
        del __main__.adds
    assert got.type == types.MemberLink
    assert space.is_node_in_atomspace(types.ConceptNode, "added by the schema")
