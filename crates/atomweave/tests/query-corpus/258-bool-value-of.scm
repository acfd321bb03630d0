; BoolValueOf: the BoolValue under a key.
;; data
(Concept "a" (alist (cons (Predicate "k") (BoolValue #t #f))))
;; query
(BoolValueOf (Concept "a") (Predicate "k"))
;; expect-value
(BoolValue #t #f)
