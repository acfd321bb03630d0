; IntervalLink 0..-1: zero or more members; the zero-length run is (List).
;; data
(List (Concept "a"))
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "x") (Concept "b"))
;; query
(Get (TypedVariable (Glob "$g") (Interval (Number 0) (Number -1)))
  (List (Concept "a") (Glob "$g")))
;; expect
(Set (List) (List (Concept "b")) (List (Concept "b") (Concept "c")))
