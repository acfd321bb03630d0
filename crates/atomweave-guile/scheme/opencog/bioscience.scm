;;; (opencog bioscience): the types of upstream's agi-bio (GeneNode, MoleculeNode, ...).
;;; A constructor for each type of atomweave's "bio" type family (the
;;; table is crates/atomweave/types/families/bio.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (opencog bioscience)
  #:use-module (opencog))

(%atomweave-define-types "bio")
