; Pow over NumberNodes: a NumberNode; one number stretches over a vector.
;; data
(Concept "x")
;; query
(Pow (Number 2) (Number 1 2 3))
;; expect
(Number 2 4 8)
