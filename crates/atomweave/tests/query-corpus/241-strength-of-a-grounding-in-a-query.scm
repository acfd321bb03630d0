; A comparison over a value read from a grounding: StrengthOf $X.
;; data
(Concept "strong" (stv 0.9 0.5))
(Concept "weak" (stv 0.1 0.5))
;; query
(Get (TypedVariable (Variable "$X") (Type "ConceptNode"))
     (And (Present (Variable "$X")) (GreaterThan (StrengthOf (Variable "$X")) (Number 0.5))))
;; expect
(Set (Concept "strong"))
