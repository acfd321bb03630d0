; LessThanLink over a MinusLink, with a GreaterThanLink: age gaps in (0, 20).
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Bind (VariableList (Variable "$p") (Variable "$q") (Variable "$a") (Variable "$b"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (Evaluation (Predicate "age") (List (Variable "$q") (Variable "$b")))
    (LessThan (Minus (Variable "$b") (Variable "$a")) (Number 20))
    (GreaterThan (Variable "$b") (Variable "$a")))
  (List (Variable "$p") (Variable "$q")))
;; expect
(Set (List (Concept "Ben") (Concept "Linas")) (List (Concept "Linas") (Concept "Nil")))
