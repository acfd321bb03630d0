;;; (atomweave legacy): types upstream removed that old data files still hold (VariableTypeNode, StructureNode, PetNode, LatestLink, ...).
;;; A constructor for each type of atomweave's "legacy" type family (the
;;; table is crates/atomweave/types/families/legacy.script); loading the
;;; module registers the types, as upstream's module did.

(define-module (atomweave legacy)
  #:use-module (opencog))

(%atomweave-define-types "legacy")
