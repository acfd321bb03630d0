; Terms that cannot be one atom: no result.
;; data
(Concept "x")
;; query
(Get (Variable "$X") (Identical (Inheritance (Variable "$X") (Concept "B")) (Inheritance (Concept "A") (Concept "C"))))
;; expect
(Set)
