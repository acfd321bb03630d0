; SatisfactionLink with a grounding.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Satisfaction (Inheritance (Variable "$x") (Concept "human")))
;; expect-tv
(stv 1 1)
