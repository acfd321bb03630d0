; A variable occurring twice in an ordered link must take one value.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "Ben")))
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "tea")))
(Evaluation (Predicate "likes") (List (Concept "Ann") (Concept "Ann")))
;; query
(Get (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$x"))))
;; expect
(Set (Concept "Ben") (Concept "Ann"))
