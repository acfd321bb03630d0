; A constant with no data around it (only the query holds it).
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (Inheritance (Variable "$x") (Concept "martian")))
;; expect
(Set)
