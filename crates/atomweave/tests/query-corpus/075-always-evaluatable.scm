; An evaluatable Always clause is evaluated, not looked up: every age is
; above 10, so every person is kept (groups keyed by $p).
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Bind (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (Always (GreaterThan (Variable "$a") (Number 10))))
  (Variable "$p"))
;; expect
(Set (Concept "Ben") (Concept "Linas") (Concept "Nil"))
