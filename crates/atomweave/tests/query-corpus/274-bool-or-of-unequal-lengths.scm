; Past the shorter vector's end, Or keeps the longer one's bits.
;; data
(Concept "a" (alist (cons (Predicate "s") (BoolValue #f #f)) (cons (Predicate "l") (BoolValue #f #t #t #f))))
;; query
(BoolOr (BoolValueOf (Concept "a") (Predicate "s")) (BoolValueOf (Concept "a") (Predicate "l")))
;; expect-value
(BoolValue #f #t #t #f)
