; Two variables, one argument: an error that counts both.
;; data
(Define (DefinedSchema "pair") (Lambda (VariableList (Variable "$X") (Variable "$Y")) (List (Variable "$X") (Variable "$Y"))))
;; query
(ExecutionOutput (DefinedSchema "pair") (List (Concept "only")))
;; expect-error
takes 2 arguments, but 1 were given
