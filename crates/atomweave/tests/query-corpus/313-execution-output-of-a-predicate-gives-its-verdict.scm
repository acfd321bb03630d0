; An ExecutionOutput of a Lambda whose body is a predicate gives the
; predicate's truth value, as upstream executes an evaluatable atom.
;; data
(Inheritance (Concept "mammal") (Concept "vertebrate"))
;; query
(ExecutionOutput (Lambda (VariableList (Variable "this") (Variable "that")) (Present (Inheritance (Variable "this") (Variable "that"))))
  (List (Concept "mammal") (Concept "vertebrate")))
;; expect-tv
(stv 1 1)
