; A typed variable that only code holds (a predicate applied to it)
; ranges over the atoms of its type, each tried.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "human") (Concept "mammal"))
(Predicate "not a concept")
(Define (DefinedPredicate "is-a") (Lambda (VariableList (Variable "this") (Variable "that")) (Present (Inheritance (Variable "this") (Variable "that")))))
;; query
(Get (TypedVariable (Variable "?x") (Type "ConceptNode")) (Put (DefinedPredicate "is-a") (List (Concept "Ben") (Variable "?x"))))
;; expect
(Set (Concept "human"))
