; A top-level GreaterThanLink: 3 > 3 is false.
;; data
;; query
(GreaterThan (Number 3) (Number 3))
;; expect-tv
(stv 0 1)
