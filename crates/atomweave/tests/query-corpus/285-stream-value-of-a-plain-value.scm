; StreamValueOf of a value that is no stream or queue: the value.
;; data
(Concept "a" (alist (cons (Predicate "k") (FloatValue 4 5))))
;; query
(StreamValueOf (Concept "a") (Predicate "k"))
;; expect-value
(FloatValue 4 5)
