; A glob two levels down, joined through a variable with another clause.
;; data
(Evaluation (Predicate "bought") (List (Concept "Ben") (List (Concept "apple") (Concept "pear"))))
(Evaluation (Predicate "bought") (List (Concept "Rex") (List (Concept "bone"))))
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Get (VariableList (Variable "$who") (Glob "$items"))
  (And
    (Evaluation (Predicate "bought") (List (Variable "$who") (List (Glob "$items"))))
    (Inheritance (Variable "$who") (Concept "human"))))
;; expect
(Set (List (Concept "Ben") (List (Concept "apple") (Concept "pear"))))
