; (Interval (Number "inf") ...) is accepted: lo = inf as usize = usize::MAX.
; glob_seq sums the minimum lengths of the members after a glob
; (`need`, search.rs), which overflows: a panic in debug builds. It should be
; refused as a bad bound.
;; data
(List (Concept "a") (Concept "b") (Concept "c"))
;; query
(Get (VariableList (Glob "$a") (TypedVariable (Glob "$b") (Interval (Number "inf") (Number -1))))
  (List (Glob "$a") (Glob "$b") (Concept "c")))
;; expect-error
Interval
