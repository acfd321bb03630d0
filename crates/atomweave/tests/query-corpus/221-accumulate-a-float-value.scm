; Accumulate sums a vector: a FloatValue in, a FloatValue out.
;; data
(Anchor "a" (alist (cons (Predicate "v") (FloatValue 0.5 1.5 2))))
;; query
(Accumulate (FloatValueOf (Anchor "a") (Predicate "v")))
;; expect-value
(FloatValue 4)
