; StringOf: a node's name as a node of another type.
;; data
(Concept "x")
;; query
(StringOf (Type "ConceptNode") (Predicate "bright"))
;; expect
(Concept "bright")
