; A typed glob: every member of its run must be a ConceptNode.
;; data
(List (Predicate "p") (Concept "a") (Concept "b"))
(List (Predicate "p") (Concept "a") (Number 1))
(List (Predicate "p") (Number 2))
;; query
(Get (TypedVariable (Glob "$g") (Type "ConceptNode"))
  (List (Predicate "p") (Glob "$g")))
;; expect
(Set (List (Concept "a") (Concept "b")))
