; FloatValueOf under the truth-value key: the truth value's numbers (a
; CountTruthValue's three).
;; data
(Concept "a" (ctv 0.5 0.25 7))
;; query
(FloatValueOf (Concept "a") (Predicate "*-TruthValueKey-*"))
;; expect-value
(FloatValue 0.5 0.25 7)
