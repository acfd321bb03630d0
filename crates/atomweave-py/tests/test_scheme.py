"""scheme_eval and scheme_eval_h: Scheme over a Python AtomSpace."""

import subprocess
import sys

import pytest

from atomweave import AtomSpace, ConceptNode, TruthValue, execute_atom, get_default_atomspace, scheme_eval, scheme_eval_as, scheme_eval_h, types
from atomweave.scheme import scheme_eval as upstream_name

pytestmark = pytest.mark.scheme


def test_eval_prints_the_value():
    space = AtomSpace()
    assert scheme_eval(space, "(+ 2 2)") == "4\n"
    assert scheme_eval(space, '(display "hi")') == "hi\n", "ends with a newline, as upstream's"
    assert scheme_eval(space, "(define n 0)") == "\n"
    assert upstream_name is scheme_eval


def test_eval_works_on_the_given_space():
    a, b = AtomSpace(), AtomSpace()
    node = a.add_node(types.ConceptNode, "cat")
    node.tv = TruthValue(0.5, 0.25)
    assert scheme_eval(a, '(cog-tv (Concept "cat"))') == "(stv 0.5 0.25)\n"
    assert scheme_eval(b, "(cog-count-atoms 'ConceptNode)") == "0\n"
    scheme_eval(b, '(Inheritance (Concept "x") (Concept "y"))')
    assert len(b) == 3 and len(a) == 1


def test_eval_h_returns_atoms_of_the_space():
    space = AtomSpace()
    atom = scheme_eval_h(space, '(ConceptNode "dog" (stv 0.9 0.8))')
    assert atom == space.get_node(types.ConceptNode, "dog")
    assert atom.tv == TruthValue(0.9, 0.8)
    link = scheme_eval_h(space, '(List (Concept "dog") (Concept "cat"))')
    assert [a.name for a in link.out] == ["dog", "cat"]
    assert scheme_eval_h(space, "(+ 1 2)") is None


def test_scheme_errors_raise():
    space = AtomSpace()
    with pytest.raises(RuntimeError, match="cog-new-link"):
        scheme_eval(space, "(cog-new-link 'ListLink 42)")
    with pytest.raises(RuntimeError):
        scheme_eval_h(space, "(car '())")
    assert scheme_eval(space, "(+ 1 1)") == "2\n", "usable after an error"


def test_eval_as_gives_the_atomspace_scheme_names(space):
    # The fixture makes `space` the default, and puts the old one back.
    assert scheme_eval_as("(cog-atomspace)") == space
    child = scheme_eval_as("(cog-new-atomspace (cog-atomspace))")
    assert child is not None and child != space
    assert scheme_eval_as("(+ 1 2)") is None


def test_scheme_calls_back_into_this_python():
    # (opencog python) in a Python process: the same interpreter, not a second one.
    space = AtomSpace()
    scheme_eval(space, '(use-modules (opencog python)) (python-eval "import __main__; __main__.set_by_scheme = 42")')
    import __main__

    assert __main__.set_by_scheme == 42
    assert scheme_eval(space, '(python-eval "print(1 + 1)")') == '"2\\n"\n'



def test_scheme_first_used_on_a_thread_that_ends():
    # The collector signals the thread that started Guile at each
    # collection; it aborted the process once that thread had ended.
    code = """
import threading
from atomweave import AtomSpace, scheme_eval
s = AtomSpace()
t = threading.Thread(target=lambda: scheme_eval(s, '(Concept "x")'))
t.start(); t.join()
for i in range(40):
    scheme_eval(s, "(length (iota 1000000))")
print(scheme_eval(s, "(cog-count-atoms 'ConceptNode)"), end="")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stdout) == (0, "1\n"), run.stderr


def test_a_space_scheme_first_sees_in_a_callback_stays_named():
    # Only a query's scratch frame is held for the call alone; a user's
    # space keeps its name for Scheme after the call.
    home = AtomSpace()
    scheme_eval(home, "(define saved #f) (define (remember x) (set! saved x) x)")
    s = AtomSpace()
    a = s.add_node(types.ConceptNode, "kept")
    execute_atom(s, s.add_link(types.ExecutionOutputLink, [s.add_node(types.GroundedSchemaNode, "scm:remember"), s.add_link(types.ListLink, [a])]))
    assert scheme_eval(s, "(cog-name saved)") == '"kept"\n'
    assert scheme_eval(s, '(equal? saved (Concept "kept"))') == "#t\n"


def test_py_callbacks_that_run_scheme_keep_no_frames():
    # Each query's scratch frame, named to Scheme by a py: callback that
    # evaluates Scheme there, is let go after the call.
    import __main__

    s = AtomSpace()
    for i in range(20):
        s.add_link(types.MemberLink, [s.add_node(types.ConceptNode, f"m{i}"), s.add_node(types.ConceptNode, "set")])

    def in_frame(x):
        # The default space in a callback is the query's scratch frame.
        scheme_eval(get_default_atomspace(), "(cog-atomspace)")
        return TruthValue(1, 1)

    __main__.in_frame = in_frame
    x = s.add_node(types.VariableNode, "$x")
    member = s.add_link(types.MemberLink, [x, s.add_node(types.ConceptNode, "set")])
    check = s.add_link(types.EvaluationLink, [s.add_node(types.GroundedPredicateNode, "py:in_frame"), s.add_link(types.ListLink, [x])])
    query = s.add_link(types.GetLink, [s.add_link(types.AndLink, [member, check])])

    def next_index() -> int:
        return int(scheme_eval(s, "(cog-atomspace-uuid (cog-new-atomspace))"))

    before = next_index()
    for _ in range(5):
        assert len(execute_atom(s, query).out) == 20
    assert next_index() == before + 1, "the frames took no index for good"
