; A PutLink in a rewrite binds the variables of its body: one named as a
; query variable is the Put's own there, not the query's grounding.
;; data
(Evaluation (Predicate "visible") (List (Concept "item")))
;; query
(Bind (Evaluation (Predicate "visible") (List (Variable "$x"))) (Put (State (Anchor "room") (Variable "$x")) (Concept "full")))
;; expect
(Set (State (Anchor "room") (Concept "full")))
