; OrLink of evaluatable clauses inside an AndLink.
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Bind (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (Or
      (LessThan (Variable "$a") (Number 35))
      (GreaterThan (Variable "$a") (Number 50))))
  (Variable "$p"))
;; expect
(Set (Concept "Ben") (Concept "Nil"))
