; GetLink, one free variable: the reference's smallest example; Rex is a dog.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (Inheritance (Variable "$H") (Concept "human")))
;; expect
(SetLink (ConceptNode "Ben") (ConceptNode "Linas"))
