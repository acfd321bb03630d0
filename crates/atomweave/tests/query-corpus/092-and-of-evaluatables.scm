; AndLink of evaluatables nested in the body's AndLink: 35 < a < 50.
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Bind (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (And
      (GreaterThan (Variable "$a") (Number 35))
      (LessThan (Variable "$a") (Number 50))))
  (Variable "$p"))
;; expect
(Set (Concept "Linas"))
