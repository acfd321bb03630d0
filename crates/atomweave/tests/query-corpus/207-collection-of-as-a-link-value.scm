; CollectionOf as a LinkValue.
;; data
(Concept "x")
;; query
(CollectionOf (Type "LinkValue") (List (Concept "a") (Concept "b")))
;; expect-value
(LinkValue (ConceptNode "a")(ConceptNode "b"))
