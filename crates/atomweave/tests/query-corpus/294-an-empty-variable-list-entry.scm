; A declaration holding an empty VariableList: an error, not a crash.
;; data
(Concept "a")
;; query
(Get (VariableList (VariableList)) (Identical (Concept "a") (Concept "a")))
;; expect-error
variable
