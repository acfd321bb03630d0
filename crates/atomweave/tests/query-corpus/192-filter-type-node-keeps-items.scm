; A type as the pattern keeps the items of exactly that type, whole.
;; data
(Concept "x")
;; query
(Filter (Type "ConceptNode") (List (Concept "a") (Predicate "p") (Concept "b")))
;; expect
(List (Concept "a") (Concept "b"))
