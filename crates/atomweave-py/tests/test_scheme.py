"""scheme_eval and scheme_eval_h: Scheme over a Python AtomSpace."""

import subprocess
import sys

import pytest

from atomweave import AtomSpace, ConceptNode, TruthValue, scheme_eval, scheme_eval_as, scheme_eval_h, types
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
