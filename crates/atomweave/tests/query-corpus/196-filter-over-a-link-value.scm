; Over a LinkValue (a value under a key): a LinkValue of the results.
;; data
(Concept "src" (alist (cons (Predicate "k") (LinkValue (Concept "a") (Predicate "p") (Concept "b")))))
;; query
(Filter (TypeInh "Node") (ValueOf (Concept "src") (Predicate "k")))
;; expect-value
(LinkValue (ConceptNode "a")(PredicateNode "p")(ConceptNode "b"))
