; A TypedVariableLink whose first member is not a variable.
;; data
(Inheritance (Concept "x") (Concept "human"))
;; query
(Get (TypedVariable (Concept "x") (Type "ConceptNode"))
  (Inheritance (Concept "x") (Concept "human")))
;; expect-error
variable
