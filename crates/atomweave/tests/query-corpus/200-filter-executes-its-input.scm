; Input that is code runs first: a GetLink's SetLink is filtered.
;; data
(Member (Concept "cat") (Concept "box"))
(Member (Predicate "furry") (Concept "box"))
;; query
(Filter (Type "ConceptNode") (Get (Member (Variable "$m") (Concept "box"))))
;; expect
(Set (Concept "cat"))
