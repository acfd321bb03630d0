; AbsentLink: humans not known to be robots.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Sophia") (Concept "human"))
(Inheritance (Concept "Sophia") (Concept "robot"))
(Inheritance (Concept "R2") (Concept "robot"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Absent (Inheritance (Variable "$x") (Concept "robot")))))
;; expect
(Set (Concept "Ben"))
