;;; (opencog python): Python embedded in Guile, sharing its AtomSpace. Run
;;; by `make test-scheme` (the extension built with its python feature):
;;;   guile --no-auto-compile crates/atomweave-guile/tests/python.scm

(use-modules (opencog) (opencog exec) (srfi srfi-64) (ice-9 threads))

(load "helpers.scm")

(test-begin "opencog-python")

;; Before (opencog python): a py: call starts Python, as upstream's core
;; loads its Python evaluator on demand.
(test-group "py: on demand"
  (test-assert "the call reaches Python, which names what is missing"
    (raises-with? "not found in module '__main__'"
      (lambda () (cog-execute! (ExecutionOutput (GroundedSchema "py:no_such_py_function") (List))))))
  (test-approximate "a function of a package's submodule runs" 1.0
    (cog-tv-mean (cog-evaluate! (Evaluation (GroundedPredicate "py:opencog.atomspace.createTruthValue") (List))))
    1e-9))

(use-modules (opencog python))

(test-group "python-eval"
  (test-equal "returns what Python printed" "py 4\n" (python-eval "print('py', 2 + 2)"))
  (test-equal "a statement that prints nothing gives \"\"" "" (python-eval "x = 40"))
  (test-equal "names live on in __main__" "42\n" (python-eval "print(x + 2)"))
  (test-assert "a Python error raises, with Python's message"
    (raises-with? "ZeroDivisionError" (lambda () (python-eval "1 / 0"))))
  (test-assert "its key is upstream's C++-EXCEPTION"
    (eq? 'C++-EXCEPTION (catch #t (lambda () (python-eval "raise ValueError('no')")) (lambda (k . a) k))))
  (test-equal "usable after an error" "back\n" (python-eval "print('back')"))
  ;; Each evaluation captures its own thread's prints, and nothing else's.
  (test-equal "two threads' evaluations keep their output apart"
    '("a\na\na\n" "b\nb\nb\n")
    (par-map (lambda (s)
               (python-eval (format #f "import time\nfor i in range(3):\n    print('~a'); time.sleep(0.02)" s)))
             '("a" "b")))
  (python-eval "def shout(a):\n    print('outside')\n    return a")
  (cog-execute! (ExecutionOutput (GroundedSchema "py:shout") (List (Concept "x"))))
  (test-equal "a print outside an evaluation is not taken by the next" "next\n" (python-eval "print('next')"))
  (test-equal "what Python prints to a file is line-buffered (it is never finalized)" "True\n"
    (python-eval "import sys; print(sys.stdout.line_buffering and sys.stderr.line_buffering)"))
  (test-assert "a string is required" (raises-with? "python-eval" (lambda () (python-eval 42))))
  ;; Scheme that Python runs must not jump over Python's frames, by any of
  ;; the shell's paths (the REPL's; a plain call, run straight from the
  ;; text; expanded code).
  (python-eval "from atomweave import scheme_eval, scheme_eval_h, AtomSpace\nscratch = AtomSpace()")
  ;; An exit thunk that jumps while an error unwinds past it.
  (module-define! (resolve-module '(guile-user)) 'wind-then-abort
    (lambda () (dynamic-wind (lambda () #f) (lambda () (error "boom")) (lambda () (abort-to-prompt 'outer 1)))))
  (for-each
    (lambda (call)
      (test-equal (string-append "an abort from Python is Python's error: " call) "stopped\n"
        (call-with-prompt 'outer
          (lambda () (python-eval (format #f "try:\n    ~a\nexcept RuntimeError as e:\n    print('stopped' if 'non-local exit' in str(e) else e)" call)))
          (lambda (k . vals) 'escaped))))
    '("scheme_eval(scratch, \"(abort-to-prompt 'outer 1)\")"
      "scheme_eval_h(scratch, \"(abort-to-prompt 'outer 1)\")"
      "scheme_eval_h(scratch, \"(let () (abort-to-prompt 'outer 1))\")"
      "scheme_eval(scratch, \"(wind-then-abort)\")"
      "scheme_eval_h(scratch, \"(wind-then-abort)\")"))
  ;; Extension modules of the standard library expect libpython's symbols
  ;; to be global; Guile loaded it as a local library.
  (test-equal "C extension modules load" "[1]\n"
    (python-eval "import _json, _decimal, _ctypes, json; print(json.dumps([1]))")))

(test-group "one AtomSpace for both languages"
  (python-eval "
from opencog.atomspace import AtomSpace, TruthValue, types
from opencog.type_constructors import ConceptNode
from opencog.utilities import get_default_atomspace
ConceptNode('from-python', tv=TruthValue(0.3, 0.6))
")
  (define made (cog-node 'ConceptNode "from-python"))
  (test-assert "an atom Python made is in Guile's current atomspace" (cog-atom? made))
  (test-approximate "with its truth value" 0.3 (cog-mean made) 1e-6)
  (Concept "from-scheme" (stv 0.7 0.2))
  (test-equal "Guile's atoms are Python's"
    "0.7\n" (python-eval "print(round(ConceptNode('from-scheme').tv.mean, 3))"))
  (python-eval "def same_as_default(asp):\n    global same\n    same = asp == get_default_atomspace()")
  (python-call-with-as "same_as_default" (cog-atomspace))
  (test-equal "Python's default atomspace is Guile's current one" "True\n" (python-eval "print(same)")))

(test-group "python-call-with-as"
  (python-eval "
def put_apple(asp):
    asp.add_node(types.ConceptNode, 'apple-in-child')
")
  (define base (cog-atomspace))
  (define child (cog-new-atomspace base))
  (python-call-with-as "put_apple" child)
  (test-assert "the function got the atomspace given"
    (cog-atom? (cog-node 'ConceptNode "apple-in-child" child)))
  (test-assert "not the current one"
    (null? (cog-node 'ConceptNode "apple-in-child")))
  (test-assert "an unknown function raises, naming it"
    (raises-with? "no_such_function" (lambda () (python-call-with-as "no_such_function" child))))
  (test-assert "an atomspace is required"
    (raises-with? "atomspace" (lambda () (python-call-with-as "put_apple" 42)))))

(test-group "py: procedures from Scheme"
  (python-eval "
def plus(a, b):
    return ConceptNode(str(float(a.name) + float(b.name)))
def half(a):
    return TruthValue(0.5, 0.25)
")
  (test-equal "GroundedSchema py:"
    (Concept "5.0")
    (cog-execute! (ExecutionOutput (GroundedSchema "py:plus") (List (Concept "2") (Concept "3")))))
  (test-approximate "GroundedPredicate py:" 0.5
    (cog-tv-mean (cog-evaluate! (Evaluation (GroundedPredicate "py:half") (List (Concept "x"))))) 1e-6)
  (test-assert "too many arguments raise"
    (raises-with? "plus" (lambda () (cog-execute! (ExecutionOutput (GroundedSchema "py:plus") (List (Concept "1") (Concept "2") (Concept "3"))))))))

(test-group "Scheme from Python inside Guile"
  (define before (cog-atomspace))
  (define child (cog-new-atomspace before))
  (python-call-with-as "put_apple" child)
  (python-eval "
from opencog.scheme_wrapper import scheme_eval, scheme_eval_h
def in_child(asp):
    global made_in_child
    made_in_child = scheme_eval_h(asp, '(Concept \"scheme-in-child\")')
")
  (python-call-with-as "in_child" child)
  (test-assert "scheme_eval_h evaluates in the space given"
    (cog-atom? (cog-node 'ConceptNode "scheme-in-child" child)))
  (test-assert "the current atomspace is Guile's own again" (equal? before (cog-atomspace)))
  (test-equal "it returned the atom" "True\n" (python-eval "print(made_in_child.name == 'scheme-in-child')")))

(define failures (test-runner-fail-count (test-runner-current)))
(test-end "opencog-python")
(exit (if (zero? failures) 0 1))
