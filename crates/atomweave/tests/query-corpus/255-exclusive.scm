; ExclusiveLink: no two members give the same value.
;; data
(Concept "x")
;; query
(Exclusive (Plus (Number 1) (Number 1)) (Number 2) (Number 3))
;; expect-tv
(stv 0 1)
