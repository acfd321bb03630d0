; A BoolValue of one stands for every place: true AND x is x.
;; data
(Concept "a" (alist (cons (Predicate "one") (BoolValue #t)) (cons (Predicate "v") (BoolValue #f #t #f))))
;; query
(BoolAnd (BoolValueOf (Concept "a") (Predicate "one")) (BoolValueOf (Concept "a") (Predicate "v")))
;; expect-value
(BoolValue #f #t #f)
