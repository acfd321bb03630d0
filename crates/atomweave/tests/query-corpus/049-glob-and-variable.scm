; A VariableNode takes exactly one member, the glob the rest (one or more).
;; data
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "x") (Concept "y"))
(List (Concept "z"))
;; query
(Get (VariableList (Variable "$first") (Glob "$rest"))
  (List (Variable "$first") (Glob "$rest")))
;; expect
(Set
  (List (Concept "a") (List (Concept "b") (Concept "c")))
  (List (Concept "x") (List (Concept "y"))))
