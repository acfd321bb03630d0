; CollectionOf a node: a SetLink of it.
;; data
(Concept "x")
;; query
(CollectionOf (Concept "alone"))
;; expect
(Set (Concept "alone"))
