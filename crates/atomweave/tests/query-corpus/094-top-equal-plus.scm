; A top-level EqualLink: 2 + 3 = 5.
;; data
;; query
(Equal (Plus (Number 2) (Number 3)) (Number 5))
;; expect-tv
(stv 1 1)
