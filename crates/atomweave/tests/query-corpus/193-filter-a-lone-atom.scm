; A lone item (not a Set or List): the result itself, not wrapped.
;; data
(Concept "x")
;; query
(Filter (Lambda (Variable "$x") (Evaluation (Predicate "p") (Variable "$x"))) (Evaluation (Predicate "p") (Concept "lone")))
;; expect
(Concept "lone")
