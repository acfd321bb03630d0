;;; (opencog exec): running queries and other executable atoms.
(define-module (opencog exec)
  #:use-module (opencog)
  #:re-export (cog-execute! cog-evaluate!))
