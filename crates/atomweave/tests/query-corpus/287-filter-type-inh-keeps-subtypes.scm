; A TypeInhNode pattern keeps items of the type or its subtypes.
;; data
(Concept "x")
;; query
(Filter (TypeInh "Node") (List (Concept "a") (List (Concept "b")) (Predicate "p")))
;; expect
(List (Concept "a") (Predicate "p"))
