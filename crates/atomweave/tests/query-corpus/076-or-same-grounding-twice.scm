; A grounding found through two alternatives counts once.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Ben") (Concept "mortal"))
(Inheritance (Concept "Socrates") (Concept "mortal"))
;; query
(Get (Or
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "mortal"))))
;; expect
(Set (Concept "Ben") (Concept "Socrates"))
