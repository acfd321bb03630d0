; A VariableList holding a ConceptNode.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Get (VariableList (Variable "$x") (Concept "c"))
  (Inheritance (Variable "$x") (Concept "human")))
;; expect-error
variable
