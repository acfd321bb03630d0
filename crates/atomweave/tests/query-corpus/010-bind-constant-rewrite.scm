; A constant rewrite: two groundings, one distinct rewrite.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Bind (Inheritance (Variable "$x") (Concept "human")) (Concept "found"))
;; expect
(Set (Concept "found"))
