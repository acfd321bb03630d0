; GreaterThanLink in a clause.
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Bind (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (GreaterThan (Variable "$a") (Number 40)))
  (Variable "$p"))
;; expect
(Set (Concept "Linas") (Concept "Nil"))
