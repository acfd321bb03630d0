; A constant rewrite with no grounding gives the empty set.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Bind (Inheritance (Variable "$x") (Concept "martian")) (Concept "found"))
;; expect
(Set)
