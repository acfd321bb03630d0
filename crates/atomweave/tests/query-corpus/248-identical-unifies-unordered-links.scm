; Unordered links unify in any order of their members.
;; data
(Concept "x")
;; query
(Get (Variable "$Y") (Identical (And (Concept "A") (Concept "B")) (And (Concept "A") (Variable "$Y"))))
;; expect
(Set (Concept "B"))
