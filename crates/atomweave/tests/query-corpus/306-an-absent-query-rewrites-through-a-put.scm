; An Absent clause grounds nothing; a Put in the rewrite that binds the
; same name is still whole.
;; data
(Concept "item")
;; query
(Bind (Absent (Evaluation (Predicate "visible") (List (Variable "$x")))) (Put (State (Anchor "room") (Variable "$x")) (Concept "empty")))
;; expect
(Set (State (Anchor "room") (Concept "empty")))
