;;; (opencog python): Python in Guile's process, as upstream's module.
;;;
;;;   (python-eval "print(2 + 2)")          ; runs in __main__, returns "4\n"
;;;   (python-call-with-as "foo" (cog-atomspace))  ; foo(AtomSpace)
;;;
;;; The interpreter shares the AtomSpace with Guile (one core in one
;;; library), starts with Guile's current atomspace as its default one, and
;;; runs the `py:` procedures of GroundedSchema and GroundedPredicate. It
;;; needs the extension built with its `python` feature (`make build-guile`
;;; does).
(define-module (opencog python)
  #:use-module (opencog)
  #:export (python-eval python-call-with-as))

(let ((init (module-ref (resolve-module '(opencog)) '%atomweave-python-init #f)))
  (if init
      (init)
      (error "(opencog python): this Guile's atomweave has no Python: the Guile inside the atomweave binary (serve's scm shell, bench -g) never has it; the extension plain guile loads has it when built with its python feature (make build-guile)")))
