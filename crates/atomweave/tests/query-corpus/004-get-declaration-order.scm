; Tuples follow the VariableList order ($y first), not the body order.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Get (VariableList (Variable "$y") (Variable "$x"))
  (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y"))))
;; expect
(Set (List (Concept "pizza") (Concept "Ben")) (List (Concept "tea") (Concept "Linas")))
