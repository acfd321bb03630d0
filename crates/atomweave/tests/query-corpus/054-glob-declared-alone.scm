; A GlobNode as the whole declaration.
;; data
(Evaluation (Predicate "seq") (List (Concept "a") (Concept "b") (Concept "z")))
(Evaluation (Predicate "seq") (List (Concept "z")))
(Evaluation (Predicate "seq") (List (Concept "c") (Concept "z") (Concept "d")))
;; query
(Get (Glob "$g")
  (Evaluation (Predicate "seq") (List (Glob "$g") (Concept "z"))))
;; expect
(Set (List (Concept "a") (Concept "b")))
