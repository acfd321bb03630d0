; A SequentialAndLink body is a conjunction of its clauses, in order.
;; data
(List (Anchor "state") (Concept "empty"))
(List (Anchor "state") (Concept "full"))
;; query
(Get (SequentialAnd (Present (List (Anchor "state") (Variable "$x"))) (Equal (Variable "$x") (Concept "empty"))))
;; expect
(Set (Concept "empty"))
