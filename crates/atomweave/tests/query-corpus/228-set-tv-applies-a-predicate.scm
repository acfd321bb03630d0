; SetTV with a predicate and arguments: a FormulaTruthValue of the
; predicate applied to them, set and given; its reading is the predicate's.
;; data
(Concept "A" (stv 0.5 0.8))
(Define (DefinedPredicate "half") (FormulaPredicate (Times (StrengthOf (Variable "$X")) (Number 0.5)) (ConfidenceOf (Variable "$X"))))
;; query
(SetTV (Concept "B") (DefinedPredicate "half") (List (Concept "A")))
;; expect-tv
(stv 0.25 0.8)
