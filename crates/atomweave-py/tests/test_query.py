"""The pattern matcher from Python: execute_atom and evaluate_atom."""

import pytest

from atomweave import LinkValue, TruthValue, evaluate_atom, execute_atom, load_str, types
from atomweave.type_constructors import (
    AbsentLink,
    AndLink,
    BindLink,
    ConceptNode,
    DualLink,
    EqualLink,
    EvaluationLink,
    GetLink,
    GreaterThanLink,
    InheritanceLink,
    ListLink,
    MeetLink,
    NumberNode,
    OrLink,
    PlusLink,
    PredicateNode,
    PresentLink,
    QueryLink,
    SatisfactionLink,
    SetLink,
    TimesLink,
    TypedVariableLink,
    TypeNode,
    VariableList,
    VariableNode,
)

TRUE = TruthValue(1, 1)
FALSE = TruthValue(0, 1)


def names(atoms):
    return sorted(a.name for a in atoms)


def H():
    return VariableNode("$H")


def test_getlink_one_variable(animals):
    q = GetLink(InheritanceLink(H(), ConceptNode("human")))
    r = execute_atom(animals, q)
    assert r.type == types.SetLink
    assert names(r.out) == ["Ben", "Linas"]
    assert r in animals  # GetLink adds its SetLink
    assert r.atomspace == animals


def test_getlink_is_the_upstream_smallest_example(animals):
    q = GetLink(InheritanceLink(H(), ConceptNode("human")))
    expected = SetLink(ConceptNode("Ben"), ConceptNode("Linas"))
    assert execute_atom(animals, q) == expected


def test_getlink_with_declared_variable(animals):
    q = GetLink(H(), InheritanceLink(H(), ConceptNode("human")))
    assert names(execute_atom(animals, q).out) == ["Ben", "Linas"]


def test_getlink_two_variables_gives_listlinks_in_declaration_order(animals):
    x, y = VariableNode("$X"), VariableNode("$Y")
    q = GetLink(VariableList(x, y), InheritanceLink(x, y))
    r = execute_atom(animals, q)
    pairs = sorted((l.out[0].name, l.out[1].name) for l in r.out)
    assert all(l.type == types.ListLink for l in r.out)
    assert pairs == [("Ben", "human"), ("Fido", "dog"), ("Linas", "human"), ("human", "animal")]
    q2 = GetLink(VariableList(y, x), InheritanceLink(x, y))
    pairs2 = sorted((l.out[1].name, l.out[0].name) for l in execute_atom(animals, q2).out)
    assert pairs2 == pairs


def test_getlink_no_results_is_empty_set(animals):
    r = execute_atom(animals, GetLink(InheritanceLink(H(), ConceptNode("unicorn"))))
    assert r.type == types.SetLink and r.arity == 0


def test_getlink_chain_join_on_shared_variable(animals):
    x, y = VariableNode("$x"), VariableNode("$y")
    q = GetLink(VariableList(x, y), AndLink(InheritanceLink(x, y), InheritanceLink(y, ConceptNode("animal"))))
    r = execute_atom(animals, q)
    assert sorted((l.out[0].name, l.out[1].name) for l in r.out) == [("Ben", "human"), ("Linas", "human")]


def test_getlink_typed_variable(space):
    y = ConceptNode("y")
    ListLink(ConceptNode("c"), y)
    ListLink(PredicateNode("p"), y)
    v = VariableNode("$v")
    r = execute_atom(space, GetLink(TypedVariableLink(v, TypeNode("ConceptNode")), ListLink(v, y)))
    assert [a.name for a in r.out] == ["c"]
    r = execute_atom(space, GetLink(TypedVariableLink(v, TypeNode("PredicateNode")), ListLink(v, y)))
    assert [a.name for a in r.out] == ["p"]


def test_absent_link(space):
    y = ConceptNode("y")
    for n in ["a", "b", "c"]:
        InheritanceLink(ConceptNode(n), y)
    ListLink(ConceptNode("b"), y)
    v = VariableNode("$v")
    q = GetLink(v, AndLink(PresentLink(InheritanceLink(v, y)), AbsentLink(ListLink(v, y))))
    assert names(execute_atom(space, q).out) == ["a", "c"]


def test_or_link_alternatives(space):
    v = VariableNode("$v")
    InheritanceLink(ConceptNode("a"), ConceptNode("x"))
    InheritanceLink(ConceptNode("b"), ConceptNode("y"))
    InheritanceLink(ConceptNode("c"), ConceptNode("z"))
    q = GetLink(v, OrLink(InheritanceLink(v, ConceptNode("x")), InheritanceLink(v, ConceptNode("y"))))
    assert names(execute_atom(space, q).out) == ["a", "b"]


def test_unordered_link_matches_any_permutation(space):
    SetLink(ConceptNode("a"), ConceptNode("b"))
    v = VariableNode("$v")
    r = execute_atom(space, GetLink(v, SetLink(v, ConceptNode("a"))))
    assert names(r.out) == ["b"]


def test_bindlink_rewrites(animals):
    q = BindLink(H(), InheritanceLink(H(), ConceptNode("human")),
                 EvaluationLink(PredicateNode("mortal"), H()))
    r = execute_atom(animals, q)
    assert r.type == types.SetLink
    assert {e.out[1].name for e in r.out} == {"Ben", "Linas"}
    for e in r.out:
        assert e.type == types.EvaluationLink
        assert e.out[0] == PredicateNode("mortal")
        assert e in animals  # rewrites are added
    assert animals.get_link(types.EvaluationLink, [PredicateNode("mortal"), ConceptNode("Ben")]) is not None


def test_meetlink_returns_a_value_and_adds_no_set(animals):
    q = MeetLink(InheritanceLink(H(), ConceptNode("human")))
    before = len(animals)
    r = execute_atom(animals, q)
    assert isinstance(r, LinkValue)
    assert names(r.to_list()) == ["Ben", "Linas"]
    assert all(a.atomspace == animals for a in r.to_list())
    assert len(animals) == before
    assert animals.get_link(types.SetLink, [ConceptNode("Ben"), ConceptNode("Linas")]) is None


def test_querylink_returns_rewrites_as_value(animals):
    q = QueryLink(H(), InheritanceLink(H(), ConceptNode("human")), ListLink(H(), ConceptNode("q")))
    r = execute_atom(animals, q)
    assert isinstance(r, LinkValue)
    items = r.to_list()
    assert len(items) == 2
    assert sorted(l.out[0].name for l in items) == ["Ben", "Linas"]
    assert all(l.type == types.ListLink and l.out[1] == ConceptNode("q") for l in items)
    assert animals.get_link(types.SetLink, items) is None


def test_satisfaction_link(animals):
    yes = SatisfactionLink(InheritanceLink(H(), ConceptNode("human")))
    no = SatisfactionLink(InheritanceLink(H(), ConceptNode("unicorn")))
    assert execute_atom(animals, yes) == TRUE
    assert execute_atom(animals, no) == FALSE
    assert evaluate_atom(animals, yes) == TRUE
    assert evaluate_atom(animals, no) == FALSE
    assert isinstance(evaluate_atom(animals, yes), TruthValue)


def test_evaluate_equal_and_greater_than(space):
    assert evaluate_atom(space, EqualLink(NumberNode("2"), PlusLink(NumberNode("1"), NumberNode("1")))) == TRUE
    assert evaluate_atom(space, EqualLink(NumberNode("3"), PlusLink(NumberNode("1"), NumberNode("1")))) == FALSE
    assert evaluate_atom(space, GreaterThanLink(NumberNode("3"), NumberNode("2"))) == TRUE
    assert evaluate_atom(space, GreaterThanLink(NumberNode("2"), NumberNode("3"))) == FALSE


def test_evaluate_plain_evaluation_gives_its_tv_and_a_concept_is_not_evaluatable(space):
    e = EvaluationLink(PredicateNode("p"), ListLink(ConceptNode("a")), tv=TruthValue(0.25, 0.5))
    assert evaluate_atom(space, e) == TruthValue(0.25, 0.5)
    with pytest.raises(ValueError, match="not evaluatable"):
        evaluate_atom(space, ConceptNode("a", tv=TruthValue(0.25, 0.5)))


def test_arithmetic(space):
    r = execute_atom(space, PlusLink(NumberNode("1"), NumberNode("2")))
    assert r.type == types.NumberNode and float(r.name) == 3.0
    r = execute_atom(space, TimesLink(NumberNode("3"), PlusLink(NumberNode("1"), NumberNode("1"))))
    assert float(r.name) == 6.0


def test_greater_than_in_a_query(space):
    v = VariableNode("$n")
    for k in ["1", "5", "10"]:
        EvaluationLink(PredicateNode("size"), NumberNode(k))
    q = GetLink(v, AndLink(EvaluationLink(PredicateNode("size"), v), GreaterThanLink(v, NumberNode("4"))))
    assert sorted(float(a.name) for a in execute_atom(space, q).out) == [5.0, 10.0]


def test_dual_link(space):
    v = VariableNode("$v")
    pattern = InheritanceLink(v, ConceptNode("animal"))
    InheritanceLink(ConceptNode("x"), ConceptNode("plant"))  # not a pattern
    r = execute_atom(space, DualLink(InheritanceLink(ConceptNode("cat"), ConceptNode("animal"))))
    assert r.type == types.SetLink
    assert pattern in r.out
    assert r.arity == 1


def test_execute_non_executable_atom_returns_it(space):
    a = ConceptNode("a")
    assert execute_atom(space, a) == a


def test_query_from_atomese_text(space):
    atoms = load_str('''
        (Inheritance (Concept "Ben") (Concept "human"))
        (Inheritance (Concept "Linas") (Concept "human"))
        (Get (Inheritance (Variable "$H") (Concept "human")))
    ''', space)
    r = execute_atom(space, atoms[2])
    assert r == load_str('(Set (Concept "Ben") (Concept "Linas"))', space)[0]


def test_query_sees_later_additions(animals):
    q = GetLink(InheritanceLink(H(), ConceptNode("human")))
    assert execute_atom(animals, q).arity == 2
    InheritanceLink(ConceptNode("Nil"), ConceptNode("human"))
    assert names(execute_atom(animals, q).out) == ["Ben", "Linas", "Nil"]


def test_query_ignores_removed_atoms(animals):
    q = GetLink(InheritanceLink(H(), ConceptNode("human")))
    animals.remove(InheritanceLink(ConceptNode("Ben"), ConceptNode("human")))
    assert names(execute_atom(animals, q).out) == ["Linas"]


def test_query_in_child_space_sees_base_and_child(animals):
    child = animals.new_child()
    child.add_link(types.InheritanceLink, [child.add_node(types.ConceptNode, "Kid"), ConceptNode("human")])
    q = child.add_link(types.GetLink, [child.add_link(types.InheritanceLink, [H(), ConceptNode("human")])])
    r = execute_atom(child, q)
    assert names(r.out) == ["Ben", "Kid", "Linas"]
    assert r in child and r not in animals
    q0 = GetLink(InheritanceLink(H(), ConceptNode("human")))
    assert names(execute_atom(animals, q0).out) == ["Ben", "Linas"]


def test_query_atom_from_other_space_runs_in_the_given_space(animals, other):
    q = GetLink(InheritanceLink(VariableNode("$H"), ConceptNode("human", atomspace=other), atomspace=other), atomspace=other)
    r = execute_atom(animals, q)
    assert r.atomspace == animals
    assert names(r.out) == ["Ben", "Linas"]


def test_repeated_execution_is_stable(animals):
    q = GetLink(InheritanceLink(H(), ConceptNode("human")))
    r1 = execute_atom(animals, q)
    size = len(animals)
    r2 = execute_atom(animals, q)
    assert r1 == r2
    assert len(animals) == size


# --- bad queries ------------------------------------------------------------

def test_getlink_without_body_is_value_error(space):
    with pytest.raises(ValueError, match="body"):
        execute_atom(space, GetLink())


def test_bindlink_without_rewrite_is_value_error(space):
    with pytest.raises(ValueError, match="rewrite"):
        execute_atom(space, BindLink(InheritanceLink(VariableNode("$x"), ConceptNode("x"))))


def test_unbound_rewrite_variable_is_value_error_and_adds_nothing(animals):
    q = BindLink(H(), InheritanceLink(H(), ConceptNode("human")), ListLink(VariableNode("$Z")))
    before = set(animals)
    with pytest.raises(ValueError, match=r"\$Z"):
        execute_atom(animals, q)
    assert set(animals) == before


def test_evaluate_of_value_query_is_value_error(animals):
    with pytest.raises(ValueError, match="not evaluatable"):
        evaluate_atom(animals, MeetLink(InheritanceLink(H(), ConceptNode("human"))))


def test_arithmetic_on_non_number_is_value_error(space):
    with pytest.raises(ValueError, match="not a number"):
        execute_atom(space, PlusLink(NumberNode("abc"), NumberNode("1")))


def test_execute_needs_a_space_and_an_atom(space):
    with pytest.raises(TypeError):
        execute_atom(3, ConceptNode("a"))
    with pytest.raises(TypeError):
        execute_atom(space, "GetLink")
    with pytest.raises(TypeError):
        evaluate_atom(space, None)


# A query of minutes: twelve variables in a set against twelve members
# (12! ways), each way then refused by an equality that never holds; in
# {sets} such sets (a GetLink, which wants every grounding, searches 300
# on the pool's threads).
LONG_QUERY = """
import signal
# Python's own Ctrl-C, even where the test runs with SIGINT ignored (a
# background job's), which the child would inherit.
signal.signal(signal.SIGINT, signal.default_int_handler)
import atomweave
from atomweave import execute_atom, evaluate_atom, load_str
space = atomweave.AtomSpace()
atomweave.set_default_atomspace(space)
[q] = load_str('({query} (And (Set {vars}) (Equal (Variable "$v0") (Concept "none"))))')
for s in range({sets}):
    load_str('(Set ' + ' '.join(f'(Concept "m{{s}}_{{i}}")' for i in range(12)) + ')')
print("started", flush=True)
try:
    {call}(space, q)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    raise SystemExit(7)
print("ran to its end", flush=True)
""".format(
    vars=" ".join(f'(Variable "$v{i}")' for i in range(12)),
    call="{call}",
    query="{query}",
    sets="{sets}",
)


@pytest.mark.parametrize(("call", "query", "sets"), [("execute_atom", "Satisfaction", 1), ("evaluate_atom", "Satisfaction", 1), ("execute_atom", "Get", 300)])
def test_ctrl_c_stops_a_long_query_with_keyboard_interrupt(call, query, sets):
    import os
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", LONG_QUERY.replace("{call}", call).replace("{query}", query).replace("{sets}", str(sets))],
        # The split needs a pool of two threads or more, whatever the machine.
        env={**os.environ, "RAYON_NUM_THREADS": "4"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "started", proc.stderr.read()
        time.sleep(0.5)
        assert proc.poll() is None, "the query ended before it was interrupted"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 7, (out, err)
        assert out.strip() == "interrupted"
        assert time.monotonic() - sent < 10
    finally:
        proc.kill()
