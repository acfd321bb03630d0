; ChoiceLink of clauses: alternatives, as OrLink.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (Choice
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "robot"))))
;; expect
(Set (Concept "Ben") (Concept "R2"))
