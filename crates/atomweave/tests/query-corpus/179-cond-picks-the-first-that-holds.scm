; CondLink: the value after the first condition that holds.
;; data
(Concept "a")
;; query
(Cond (Equal (Number 1) (Number 2)) (Concept "first") (Equal (Number 2) (Number 2)) (Concept "second") (Concept "default"))
;; expect
(Concept "second")
