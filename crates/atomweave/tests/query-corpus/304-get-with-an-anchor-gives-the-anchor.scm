; An AnchorNode among a query's declarations: each grounding goes on it
; in a MemberLink, and the query gives the anchor.
;; data
(Evaluation (Predicate "foobar") (List (Concept "funny") (Concept "thing")))
;; query
(Get (VariableList (Variable "$x") (Anchor "results")) (Evaluation (Predicate "foobar") (List (Concept "funny") (Variable "$x"))))
;; expect
(Anchor "results")
