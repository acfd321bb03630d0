; ChoiceLink inside a term: any one of its members there.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (Inheritance (Variable "$x") (Choice (Concept "human") (Concept "robot"))))
;; expect
(Set (Concept "Ben") (Concept "R2"))
