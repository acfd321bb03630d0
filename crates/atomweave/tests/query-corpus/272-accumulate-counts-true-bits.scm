; Accumulate of a BoolValue counts its true bits.
;; data
(Concept "a" (alist (cons (Predicate "k") (BoolValue #t #f #t #t))))
;; query
(Accumulate (BoolValueOf (Concept "a") (Predicate "k")))
;; expect-value
(FloatValue 3)
