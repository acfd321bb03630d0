; One number stretches over a vector: each element divided by it.
;; data
(Concept "x")
;; query
(Divide (Number 2 4 8) (Number 2))
;; expect
(Number 1 2 4)
