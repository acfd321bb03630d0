; QueryLink with a constant rewrite: one distinct result.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Query (Inheritance (Variable "$x") (Concept "human")) (Concept "yes"))
;; expect-atoms
(Concept "yes")
