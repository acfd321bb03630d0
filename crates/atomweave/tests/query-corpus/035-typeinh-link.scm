; TypeInhNode "Link": only the ListLink member.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Predicate "p") (Concept "bag"))
(Member (Number 3) (Concept "bag"))
(Member (List (Concept "a") (Concept "b")) (Concept "bag"))
(Member (Concept "c") (Concept "box"))
;; query
(Get (TypedVariable (Variable "$x") (TypeInhNode "Link"))
  (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (List (Concept "a") (Concept "b")))
