; A top-level DivideLink with a fractional result.
;; data
;; query
(Divide (Number 7) (Number 2))
;; expect
(Number 3.5)
