; Concatenate of a LinkValue of LinkValues: one LinkValue.
;; data
(Anchor "a" (alist (cons (Predicate "k") (LinkValue (LinkValue (Concept "a") (Concept "b")) (LinkValue (Concept "c"))))))
;; query
(Concatenate (ValueOf (Anchor "a") (Predicate "k")))
;; expect-value
(LinkValue (ConceptNode "a")(ConceptNode "b")(ConceptNode "c"))
