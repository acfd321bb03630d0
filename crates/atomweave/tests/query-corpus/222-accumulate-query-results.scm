; Accumulate of a query's results: the sum of the FloatValues it gives
; (here a dot product of two counts).
;; data
(Evaluation (Predicate "has legs") (Concept "dog") (ctv 1 0 2))
(Evaluation (Predicate "has legs") (Concept "cat") (ctv 1 0 3))
(Evaluation (Predicate "furry") (Concept "dog") (ctv 1 0 4))
(Evaluation (Predicate "furry") (Concept "cat") (ctv 1 0 5))
;; query
(Accumulate (Query (TypedVariable (Variable "$p") (Type "PredicateNode"))
   (Present (Evaluation (Variable "$p") (Concept "dog")) (Evaluation (Variable "$p") (Concept "cat")))
   (Times (CountOf (Evaluation (Variable "$p") (Concept "dog"))) (CountOf (Evaluation (Variable "$p") (Concept "cat"))))))
;; expect-value
(FloatValue 26)
