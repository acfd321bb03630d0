; Disconnected clauses: the cartesian product of their groundings.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "C3PO") (Concept "robot"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Inheritance (Variable "$y") (Concept "robot"))))
;; expect
(Set
  (List (Concept "Ben") (Concept "R2"))
  (List (Concept "Ben") (Concept "C3PO"))
  (List (Concept "Linas") (Concept "R2"))
  (List (Concept "Linas") (Concept "C3PO")))
