; ElementOf: the members at the indexes (rounded), in a link of the same type.
;; data
(Concept "x")
;; query
(ElementOf (Number 2 0.4 2) (List (Concept "a") (Concept "b") (Concept "c")))
;; expect
(List (Concept "c") (Concept "a") (Concept "c"))
