; A top-level GreaterThanLink: 2 > 3 is false.
;; data
;; query
(GreaterThan (Number 2) (Number 3))
;; expect-tv
(stv 0 1)
