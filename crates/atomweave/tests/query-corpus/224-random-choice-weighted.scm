; RandomChoice of weighted pairs never picks one weighing nothing.
;; data
(Concept "x")
;; query
(RandomChoice (Set (List (Number 0) (Concept "never")) (List (Number 2) (Concept "always"))))
;; expect
(Concept "always")
