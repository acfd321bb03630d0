; A rewrite that is the glob itself: its run as a ListLink.
;; data
(List (Concept "cmd") (Concept "x") (Concept "y"))
(List (Concept "cmd") (Concept "z"))
;; query
(Bind (List (Concept "cmd") (Glob "$args")) (Glob "$args"))
;; expect
(Set (List (Concept "x") (Concept "y")) (List (Concept "z")))
