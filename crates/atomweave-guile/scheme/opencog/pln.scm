;;; (opencog pln): the types of upstream's PLN (IntensionalInheritanceLink, ...).
;;; A constructor for each type of atomweave's "pln" type family (the
;;; table is crates/atomweave/types/families/pln.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (opencog pln)
  #:use-module (opencog))

(%atomweave-define-types "pln")
