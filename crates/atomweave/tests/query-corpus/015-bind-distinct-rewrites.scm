; Several groundings giving the same rewrite count once.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "tea")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y"))
  (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y")))
  (Evaluation (Predicate "likes-something") (List (Variable "$x"))))
;; expect
(Set
  (Evaluation (Predicate "likes-something") (List (Concept "Ben")))
  (Evaluation (Predicate "likes-something") (List (Concept "Linas"))))
