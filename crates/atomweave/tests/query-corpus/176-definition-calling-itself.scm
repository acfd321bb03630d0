; A definition that calls itself without end stops with an error, not a
; stack overflow.
;; data
(Define (DefinedSchema "loop") (Lambda (Variable "$x") (ExecutionOutput (DefinedSchema "loop") (List (Variable "$x")))))
;; query
(ExecutionOutput (DefinedSchema "loop") (List (Concept "a")))
;; expect-error
nest more than
