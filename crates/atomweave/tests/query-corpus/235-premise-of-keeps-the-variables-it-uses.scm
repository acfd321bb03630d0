; PremiseOf with an index: that member of the premise, as a Lambda over
; the declared variables it uses.
;; data
(Concept "x")
;; query
(PremiseOf (Rule (VariableList (TypedVariable (Variable "$A") (Type "ConceptNode")) (TypedVariable (Variable "$B") (Type "ConceptNode")))
                 (SequentialAnd (Implication (Variable "$A") (Variable "$B")) (Variable "$A"))
                 (Variable "$B"))
           (Number 1))
;; expect
(Lambda (TypedVariable (Variable "$A") (Type "ConceptNode")) (Variable "$A"))
