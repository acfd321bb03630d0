; CollectionOf: a link's members in a SetLink by default.
;; data
(Concept "x")
;; query
(CollectionOf (List (Concept "b") (Concept "a") (Concept "b")))
;; expect
(Set (Concept "a") (Concept "b") (Concept "b"))
