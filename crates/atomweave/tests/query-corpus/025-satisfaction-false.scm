; SatisfactionLink without a grounding.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Satisfaction (Inheritance (Variable "$x") (Concept "robot")))
;; expect-tv
(stv 0 1)
