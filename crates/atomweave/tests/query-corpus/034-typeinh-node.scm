; TypeInhNode: the type or any subtype; every node in the bag, no link.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Predicate "p") (Concept "bag"))
(Member (Number 3) (Concept "bag"))
(Member (List (Concept "a") (Concept "b")) (Concept "bag"))
(Member (Concept "c") (Concept "box"))
;; query
(Get (TypedVariable (Variable "$x") (TypeInh "Node"))
  (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (Concept "a") (Predicate "p") (Number 3))
