; ElementOf picks from a FloatValue too.
;; data
(Concept "a" (alist (cons (Predicate "v") (FloatValue 10 20 30))))
;; query
(ElementOf (Number 2 0) (FloatValueOf (Concept "a") (Predicate "v")))
;; expect-value
(FloatValue 30 10)
