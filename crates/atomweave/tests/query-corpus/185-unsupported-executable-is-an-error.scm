; Executable code the engine does not run yet is an error that names its
; type: never the link given back as if it were its own result.
;; data
(Concept "a")
;; query
(PureExec (Concept "a"))
;; expect-error
executing PureExecLink is not supported yet
