; A DefinedProcedureNode names a schema as a DefinedSchemaNode does.
;; data
(Define (DefinedProcedure "inc") (Lambda (Variable "$n") (Plus (Variable "$n") (Number 1))))
;; query
(ExecutionOutput (DefinedProcedure "inc") (List (Number 41)))
;; expect
(Number 42)
