; A numeric function of a FloatValue gives a FloatValue.
;; data
(Concept "a" (alist (cons (Predicate "k") (FloatValue 1 8 1024))))
;; query
(Log2 (FloatValueOf (Concept "a") (Predicate "k")))
;; expect-value
(FloatValue 0 3 10)
