; A top-level TimesLink of three numbers: 1.5 * 4 * 2.
;; data
;; query
(Times (Number 1.5) (Number 4) (Number 2))
;; expect
(Number 12)
