; Both clauses have groundings, but never with the same $x.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
;; query
(Satisfaction (VariableList (Variable "$x"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Inheritance (Variable "$x") (Concept "robot"))))
;; expect-tv
(stv 0 1)
