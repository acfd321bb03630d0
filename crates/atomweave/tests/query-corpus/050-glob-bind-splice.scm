; A glob inside a rewrite link is spliced in.
;; data
(List (Concept "cmd") (Concept "x") (Concept "y"))
(List (Concept "cmd") (Concept "z"))
(List (Concept "other") (Concept "w"))
;; query
(Bind (List (Concept "cmd") (Glob "$args"))
  (Evaluation (Predicate "run") (List (Glob "$args"))))
;; expect
(Set
  (Evaluation (Predicate "run") (List (Concept "x") (Concept "y")))
  (Evaluation (Predicate "run") (List (Concept "z"))))
