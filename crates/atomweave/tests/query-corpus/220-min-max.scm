; Min and Max, pointwise over vectors of one length.
;; data
(Concept "x")
;; query
(Minus (Max (Number 1 6 7) (Number 2 5 8)) (Min (Number 1 6 7) (Number 2 5 8)))
;; expect
(Number 1 1 1)
