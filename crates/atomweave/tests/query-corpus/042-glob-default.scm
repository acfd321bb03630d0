; A GlobNode (undeclared) takes one or more members by default: not zero,
; so (List a) does not match; each run is a ListLink in the result.
;; data
(List (Concept "a"))
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "x") (Concept "b"))
;; query
(Get (List (Concept "a") (Glob "$g")))
;; expect
(Set (List (Concept "b")) (List (Concept "b") (Concept "c")))
