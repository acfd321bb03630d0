; ExecutionOutputLink of a DefinedSchemaNode: the DefineLink's lambda, its
; variables replaced by the arguments in order, the body executed (here the
; arithmetic it holds).
;; data
(Define (DefinedSchema "add") (Lambda (VariableList (Variable "$X") (Variable "$Y")) (Plus (Variable "$X") (Variable "$Y"))))
;; query
(ExecutionOutput (DefinedSchema "add") (List (Number "3") (Number "4")))
;; expect
(Number "7")
