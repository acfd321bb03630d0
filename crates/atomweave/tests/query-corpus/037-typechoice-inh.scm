; TypeChoice mixing TypeInhNode and TypeNode. TypeNode and
; GroundedPredicateNode are PredicateNode subtypes (TypeNode <- BondNode <-
; LexicalNode <- PredicateNode); ConceptNode and NumberNode are not.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Predicate "p") (Concept "bag"))
(Member (GroundedPredicate "scm: foo") (Concept "bag"))
(Member (Type "ConceptNode") (Concept "bag"))
(Member (Number 3) (Concept "bag"))
(Member (List (Concept "a") (Concept "b")) (Concept "bag"))
(Member (Set (Concept "a") (Concept "b")) (Concept "bag"))
;; query
(Get (TypedVariable (Variable "$x") (TypeChoice (TypeInh "PredicateNode") (Type "ListLink")))
  (Member (Variable "$x") (Concept "bag")))
;; expect
(Set
  (Predicate "p")
  (GroundedPredicate "scm: foo")
  (Type "ConceptNode")
  (List (Concept "a") (Concept "b")))
