;;; (opencog spacetime): the types of upstream's spacetime module (AtTimeLink, TimeNode, ...).
;;; A constructor for each type of atomweave's "spacetime" type family (the
;;; table is crates/atomweave/types/families/spacetime.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (opencog spacetime)
  #:use-module (opencog))

(%atomweave-define-types "spacetime")
