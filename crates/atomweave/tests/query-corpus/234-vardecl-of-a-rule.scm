; VardeclOf: a rule's variable declaration, as written.
;; data
(Concept "x")
;; query
(VardeclOf (Rule (VariableList (TypedVariable (Variable "$A") (Type "ConceptNode")) (Variable "$B"))
                 (Variable "$B") (Implication (Variable "$A") (Variable "$B"))))
;; expect
(VariableList (TypedVariable (Variable "$A") (Type "ConceptNode")) (Variable "$B"))
