; RandomNumber between two bounds: at and above the first, below the second
; (here between 5 and 5, so exactly 5).
;; data
(Concept "x")
;; query
(RandomNumber (Number 5) (Number 5))
;; expect
(Number 5)
