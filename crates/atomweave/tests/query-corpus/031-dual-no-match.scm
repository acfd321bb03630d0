; DualLink: no pattern fits the term.
;; data
(Inheritance (Variable "$x") (Concept "robot"))
(Member (Concept "Ben") (Variable "$y"))
;; query
(Dual (Inheritance (Concept "Ben") (Concept "human")))
;; expect
(Set)
