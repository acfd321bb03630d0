; A comparison over a value a grounding does not have does not hold: that
; grounding is left out, and the others are found.
;; data
(Concept "a" (alist (cons (Predicate "k") (FloatValue 42))))
(Concept "b" (alist (cons (Predicate "k") (FloatValue 35))))
(Concept "no value")
;; query
(Get (TypedVariable (Variable "$X") (Type "ConceptNode"))
     (And (Present (Variable "$X")) (GreaterThan (Divide (FloatValueOf (Variable "$X") (Predicate "k")) (Number 12)) (Number 3))))
;; expect
(Set (Concept "a"))
