; A spliced glob between constants of the rewrite link.
;; data
(List (Concept "cmd") (Concept "x") (Concept "y"))
;; query
(Bind (List (Concept "cmd") (Glob "$args"))
  (List (Concept "begin") (Glob "$args") (Concept "end")))
;; expect
(Set (List (Concept "begin") (Concept "x") (Concept "y") (Concept "end")))
