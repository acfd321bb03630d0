; Arithmetic over vectors of 2 and 3 numbers is an error naming them.
;; data
(Concept "x")
;; query
(Plus (Number 1 2) (Number 1 2 3))
;; expect-error
vectors of 2 and 3 numbers
