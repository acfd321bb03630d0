; DontExecLink: its member, not executed.
;; data
(Concept "a")
;; query
(DontExec (Plus (Number 1) (Number 2)))
;; expect
(Plus (Number 1) (Number 2))
