; A ChoiceLink in one clause, joined with another clause.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Rex") (Concept "dog"))
(Member (Concept "R2") (Concept "team"))
(Member (Concept "Rex") (Concept "team"))
;; query
(Get (And
  (Member (Variable "$x") (Concept "team"))
  (Inheritance (Variable "$x") (Choice (Concept "human") (Concept "robot")))))
;; expect
(Set (Concept "R2"))
