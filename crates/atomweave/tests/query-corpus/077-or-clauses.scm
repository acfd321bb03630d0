; OrLink of clauses: the union of the results of each.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (Or
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "robot"))))
;; expect
(Set (Concept "Ben") (Concept "R2"))
