; Executable code the engine does not run yet is an error that names its
; type: never the link given back as if it were its own result.
;; data
(Concept "a")
;; query
(ExecuteThreaded (Concept "a"))
;; expect-error
executing ExecuteThreadedLink is not supported yet
