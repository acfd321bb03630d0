; IntervalLink 2..3: runs of two or three members only.
;; data
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "a") (Concept "b") (Concept "c") (Concept "d"))
(List (Concept "a") (Concept "b") (Concept "c") (Concept "d") (Concept "e"))
;; query
(Get (TypedVariable (Glob "$g") (Interval (Number 2) (Number 3)))
  (List (Concept "a") (Glob "$g")))
;; expect
(Set (List (Concept "b") (Concept "c")) (List (Concept "b") (Concept "c") (Concept "d")))
