; A DefinedPredicate that names a LambdaLink is a predicate of arguments:
; as a bare clause it has nothing to apply to, and says how to apply it.
;; data
(Define (DefinedPredicate "is-a") (Lambda (VariableList (Variable "a") (Variable "b")) (Present (Inheritance (Variable "a") (Variable "b")))))
;; query
(Get (TypedVariable (Variable "$x") (Type "ConceptNode")) (And (Present (Inheritance (Variable "$x") (Concept "c"))) (DefinedPredicate "is-a")))
;; expect-error
apply it with an EvaluationLink or a PutLink
