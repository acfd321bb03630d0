;;; (opencog): atomweave's AtomSpace, with upstream OpenCog's Scheme API.
;;;
;;; The cog-* functions, a constructor for every atom and value type (long
;;; and short names: ConceptNode, Concept, FloatValue), truth values (stv,
;;; ctv), atomspaces, queries (cog-execute!) and the StorageNode calls. All
;;; of them are defined by the extension this module loads.

(define-module (opencog))

(catch #t
  (lambda () (load-extension "libatomweave_guile" "atomweave_guile_init"))
  (lambda (key . args)
    (error (string-append
            "(opencog) cannot load atomweave's extension libatomweave_guile.so: build it"
            " and point Guile at it (eval \"$(make -s guile-env)\"), or install it"
            " (make install-guile). "
            (string-trim-right
             (call-with-output-string (lambda (port) (print-exception port #f key args)))
             #\newline)))))

(define* (cog-prt-atomspace #:optional (atomspace (cog-atomspace)))
  "Prints every atom of ATOMSPACE that no link holds, in the REPL form."
  (for-each display (cog-get-all-roots atomspace)))

(export cog-prt-atomspace)
