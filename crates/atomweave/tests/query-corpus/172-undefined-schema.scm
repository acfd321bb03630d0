; A DefinedSchemaNode no DefineLink names.
;; data
(Concept "a")
;; query
(ExecutionOutput (DefinedSchema "nowhere") (List (Concept "a")))
;; expect-error
is not defined
