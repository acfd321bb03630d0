; IntervalLink 0..0: only the empty run.
;; data
(List (Concept "a"))
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "x") (Concept "b"))
;; query
(Get (TypedVariable (Glob "$g") (Interval (Number 0) (Number 0)))
  (List (Concept "a") (Glob "$g")))
;; expect
(Set (List))
