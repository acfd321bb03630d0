; The boolean links take BoolValues: anything else is an error naming it.
;; data
(Concept "x")
;; query
(BoolNot (Number 1))
;; expect-error
not a BoolValue
