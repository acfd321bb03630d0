; SetTV of a PromisePredicate sets its FormulaTruthValue as the truth
; value, and gives it; each reading runs the formulas.
;; data
(Concept "A" (stv 0.4 0.5))
;; query
(SetTV (Concept "B") (PromisePredicate (Times (StrengthOf (Concept "A")) (Number 2)) (ConfidenceOf (Concept "A"))))
;; expect-tv
(stv 0.8 0.5)
