; A grounded schema whose prefix no front end registered: a clear error.
;; data
(Concept "a")
;; query
(ExecutionOutput (GroundedSchema "zz:f") (List (Concept "a")))
;; expect-error
no front end runs zz: procedures
