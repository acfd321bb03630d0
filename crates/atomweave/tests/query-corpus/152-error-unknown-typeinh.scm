; An unknown type in a TypeInhNode, in a VariableList.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Bind (VariableList (TypedVariable (Variable "$x") (TypeInh "Bogus")))
  (Inheritance (Variable "$x") (Concept "human"))
  (Variable "$x"))
;; expect-error
Bogus
