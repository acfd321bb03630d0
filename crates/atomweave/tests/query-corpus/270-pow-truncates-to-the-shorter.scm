; Pow of two vectors goes pointwise over the shorter one's length.
;; data
(Concept "x")
;; query
(Pow (Number 2 3 4) (Number 2 2))
;; expect
(Number 4 9)
