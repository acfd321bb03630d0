; Unary functions, elementwise: Heaviside is 1 at and above zero.
;; data
(Concept "x")
;; query
(Plus (Log2 (Number 8)) (Floor (Number 2.7)) (Heaviside (Number -1 0 5)) (Sine (Number 0)))
;; expect
(Number 5 6 6)
