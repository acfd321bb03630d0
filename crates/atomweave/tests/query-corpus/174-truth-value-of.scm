; TruthValueOfLink gives the atom's truth value.
;; data
(Concept "a" (stv 0.25 0.5))
;; query
(TruthValueOf (Concept "a"))
;; expect-tv
(stv 0.25 0.5)
