; CollectionOf collects atoms or LinkValues: a FloatValue is an error.
;; data
(Concept "a" (alist (cons (Predicate "v") (FloatValue 1))))
;; query
(CollectionOf (FloatValueOf (Concept "a") (Predicate "v")))
;; expect-error
not a FloatValue
