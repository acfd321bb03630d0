; SatisfactionLink with an evaluatable clause that some grounding passes.
;; data
(Evaluation (Predicate "age") (List (Concept "Ben") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Linas") (Number 45)))
(Evaluation (Predicate "age") (List (Concept "Nil") (Number 60)))
;; query
(Satisfaction (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (GreaterThan (Variable "$a") (Number 50))))
;; expect-tv
(stv 1 1)
