; Executable code the engine does not run yet is an error that names its
; type: never the link given back as if it were its own result.
;; data
(Concept "a")
;; query
(SetValue (Concept "a") (Predicate "k") (Number 1))
;; expect-error
executing SetValueLink is not supported yet
