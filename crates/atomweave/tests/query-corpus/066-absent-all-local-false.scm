; As absent-all-local-true, but a robot exists: no result.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
(Inheritance (Concept "R2") (Concept "robot"))
;; query
(Bind (VariableList (Variable "$x") (Variable "$r"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Inheritance (Variable "$r") (Concept "robot"))))
  (Variable "$x"))
;; expect
(Set)
