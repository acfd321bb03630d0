; A SetLink inside an ordered link, joined with another clause.
;; data
(Evaluation (Predicate "team") (Set (Concept "Ben") (Concept "Linas") (Concept "R2")))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Evaluation (Predicate "team") (Set (Concept "Ben") (Variable "$x") (Variable "$y")))
    (Inheritance (Variable "$x") (Concept "human"))))
;; expect
(Set (List (Concept "Linas") (Concept "R2")))
