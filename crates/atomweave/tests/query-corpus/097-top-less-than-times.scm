; A top-level LessThanLink over a TimesLink: 2 * 3 < 7.
;; data
;; query
(LessThan (Times (Number 2) (Number 3)) (Number 7))
;; expect-tv
(stv 1 1)
