;;; (opencog python): upstream's Python-in-Guile bridge (python-eval, py:
;;; procedures called from Scheme). Not supported by atomweave: Guile here
;;; embeds no Python. Run Python with the atomweave package (whose
;;; scheme_eval runs Scheme over the same AtomSpace, and whose py:
;;; procedures the queries it runs call).
(define-module (opencog python))
(error "(opencog python) is not supported by atomweave: Guile here embeds no Python; use Python's atomweave package, whose scheme_eval runs Scheme over a Python AtomSpace")
