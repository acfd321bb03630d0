;;; (opencog attention): the types of upstream's attention module (HebbianLink, ...); av and cog-av are in (opencog).
;;; A constructor for each type of atomweave's "attention" type family (the
;;; table is crates/atomweave/types/families/attention.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (opencog attention)
  #:use-module (opencog))

(%atomweave-define-types "attention")
