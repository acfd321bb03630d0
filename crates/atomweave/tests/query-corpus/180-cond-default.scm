; CondLink: no condition holds, so the default after the pairs.
;; data
(Concept "a")
;; query
(Cond (Equal (Number 1) (Number 2)) (Concept "first") (Concept "default"))
;; expect
(Concept "default")
