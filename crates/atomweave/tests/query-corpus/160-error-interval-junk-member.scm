; An IntervalLink must hold exactly two NumberNodes; the compiler drops
; members that are not numbers (filter_map), so this three-member one is
; read as (Interval 1 2) and the query runs.
;; data
(List (Concept "a") (Concept "b") (Concept "c"))
;; query
(Get (TypedVariable (Glob "$g") (Interval (Number 1) (Concept "junk") (Number 2)))
  (List (Glob "$g") (Concept "c")))
;; expect-error
Interval
