; An index past the premise's members is an error.
;; data
(Concept "x")
;; query
(PremiseOf (Rule (Variable "$A") (And (Variable "$A")) (Variable "$A")) (Number 3))
;; expect-error
out of range
