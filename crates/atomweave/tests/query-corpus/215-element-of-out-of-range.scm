; An index past the end is an error.
;; data
(Concept "x")
;; query
(ElementOf (Number 5) (List (Concept "a")))
;; expect-error
out of range
