; A variable grounds to a node or a whole link alike.
;; data
(Evaluation (Predicate "rule") (List (Concept "a") (Concept "b")))
(Evaluation (Predicate "rule") (Concept "c"))
(Evaluation (Predicate "other") (Concept "d"))
;; query
(Get (Evaluation (Predicate "rule") (Variable "$x")))
;; expect
(Set (List (Concept "a") (Concept "b")) (Concept "c"))
