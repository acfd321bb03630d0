; A disconnected component with no grounding empties the product.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Inheritance (Variable "$y") (Concept "robot"))))
;; expect
(Set)
