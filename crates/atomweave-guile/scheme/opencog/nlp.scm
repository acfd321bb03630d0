;;; (opencog nlp): the types of upstream's natural-language modules (SentenceNode, WordInstanceNode, ReferenceLink, ...).
;;; A constructor for each type of atomweave's "nlp" type family (the
;;; table is crates/atomweave/types/families/nlp.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (opencog nlp)
  #:use-module (opencog))

(%atomweave-define-types "nlp")
