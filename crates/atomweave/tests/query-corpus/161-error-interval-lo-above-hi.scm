; An IntervalLink whose lower bound is above its upper bound (3..1) is
; accepted and silently matches nothing; so is an upper bound of NaN.
;; data
(List (Concept "a") (Concept "b") (Concept "c"))
;; query
(Get (TypedVariable (Glob "$g") (Interval (Number 3) (Number 1)))
  (List (Glob "$g") (Concept "c")))
;; expect-error
Interval
