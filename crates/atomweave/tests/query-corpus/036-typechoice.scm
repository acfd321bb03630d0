; TypeChoice of two TypeNodes.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Predicate "p") (Concept "bag"))
(Member (Number 3) (Concept "bag"))
(Member (List (Concept "a") (Concept "b")) (Concept "bag"))
(Member (Concept "c") (Concept "box"))
;; query
(Get (TypedVariable (Variable "$x") (TypeChoice (Type "ConceptNode") (Type "NumberNode")))
  (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (Concept "a") (Number 3))
