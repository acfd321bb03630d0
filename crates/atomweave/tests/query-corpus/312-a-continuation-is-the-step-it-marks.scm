; A ContinuationLink in a query marks a recursive step: the predicate
; applied to the grounding, evaluated for each.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "human") (Concept "mammal"))
(Define (DefinedPredicate "is-a") (Lambda (VariableList (Variable "this") (Variable "that")) (Present (Inheritance (Variable "this") (Variable "that")))))
;; query
(Get (Variable "middle") (And (Present (Inheritance (Concept "Ben") (Variable "middle")))
  (Continuation (Put (DefinedPredicate "is-a") (List (Variable "middle") (Concept "mammal"))))))
;; expect
(Set (Concept "human"))
