; A glob before a constant; (List end end) gives the run (end); (List end)
; leaves nothing for the glob; (List a end b) does not end in "end".
;; data
(List (Concept "a") (Concept "b") (Concept "end"))
(List (Concept "end"))
(List (Concept "end") (Concept "end"))
(List (Concept "a") (Concept "end") (Concept "b"))
;; query
(Get (List (Glob "$g") (Concept "end")))
;; expect
(Set (List (Concept "a") (Concept "b")) (List (Concept "end")))
