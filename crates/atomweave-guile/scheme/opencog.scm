;;; (opencog): atomweave's AtomSpace, with upstream OpenCog's Scheme API.
;;;
;;; The cog-* functions, a constructor for every atom and value type (long
;;; and short names: ConceptNode, Concept, FloatValue), truth values (stv,
;;; ctv), atomspaces, queries (cog-execute!) and the StorageNode calls. All
;;; of them are defined by the extension this module loads.

(define-module (opencog))

(load-extension "libatomweave_guile" "atomweave_guile_init")
