; PresentLink with two clauses: both must be present.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Ben") (Concept "mortal"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Socrates") (Concept "mortal"))
;; query
(Get (Present
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "mortal"))))
;; expect
(Set (Concept "Ben"))
