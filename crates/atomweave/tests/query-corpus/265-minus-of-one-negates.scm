; MinusLink of one vector negates it; of two, subtracts elementwise.
;; data
(Concept "x")
;; query
(Plus (Minus (Number 1 2)) (Minus (Number 10 20) (Number 1 2)))
;; expect
(Number 8 16)
