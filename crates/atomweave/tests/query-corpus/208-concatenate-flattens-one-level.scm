; Concatenate: the members of each member, one level down.
;; data
(Concept "x")
;; query
(Concatenate (Type "ListLink") (List (List (Concept "a") (Concept "b")) (Concept "c") (List (Concept "d"))))
;; expect
(List (Concept "a") (Concept "b") (Concept "c") (Concept "d"))
