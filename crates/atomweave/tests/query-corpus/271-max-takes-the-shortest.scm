; Max is pointwise over the shortest vector, with no stretching.
;; data
(Concept "x")
;; query
(Max (Number 3) (Number 1 2 5))
;; expect
(Number 3)
