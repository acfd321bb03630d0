; A glob takes one member or more; another pattern member after it stops it.
;; data
(Concept "x")
;; query
(Filter (Lambda (Glob "$g") (List (Concept "start") (Glob "$g") (Concept "end")))
        (Set (List (Concept "start") (Concept "a") (Concept "b") (Concept "end"))
             (List (Concept "start") (Concept "end"))
             (List (Concept "start") (Concept "c") (Concept "end"))))
;; expect
(Set (List (Concept "a") (Concept "b")) (List (Concept "c")))
