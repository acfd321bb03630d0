; The only robot link is hidden in the child: SatisfactionLink is false there.
;; data
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Ben") (Concept "human"))
;; child-extract
(Inheritance (Concept "R2") (Concept "robot"))
;; query
(Satisfaction (Inheritance (Variable "$x") (Concept "robot")))
;; expect-tv
(stv 0 1)
