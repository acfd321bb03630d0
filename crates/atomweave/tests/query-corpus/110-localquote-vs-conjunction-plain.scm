; The same AndLink unquoted is a conjunction: Ben and Linas.
;; data
(And
  (Inheritance (Concept "Ben") (Concept "human"))
  (Inheritance (Concept "Ben") (Concept "mortal")))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "mortal"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "mortal"))))
;; expect
(Set (Concept "Ben") (Concept "Linas"))
