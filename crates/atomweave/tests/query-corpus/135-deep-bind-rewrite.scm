; A rewrite nesting the groundings three levels deep.
;; data
(Evaluation (Predicate "pair") (List (Concept "a") (Concept "b")))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y"))
  (Evaluation (Predicate "pair") (List (Variable "$x") (Variable "$y")))
  (Evaluation (Predicate "wrap") (List (List (List (Variable "$y") (Variable "$x"))))))
;; expect
(Set (Evaluation (Predicate "wrap") (List (List (List (Concept "b") (Concept "a"))))))
