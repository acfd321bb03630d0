; IncomingOf with a type: the links of exactly that type holding the atom.
;; data
(Evaluation (Predicate "p") (Concept "a"))
(List (Predicate "p") (Concept "b"))
;; query
(IncomingOf (Predicate "p") (Type "ListLink"))
;; expect-value
(LinkValue (ListLink (PredicateNode "p")(ConceptNode "b")))
