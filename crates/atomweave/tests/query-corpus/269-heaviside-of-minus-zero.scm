; Heaviside reads the sign bit: -0 is below zero, +0 is not.
;; data
(Concept "x")
;; query
(Heaviside (Number -0.0 0 -2 2))
;; expect
(Number 0 1 0 1)
