; ExecuteThreaded with fewer than one thread is an error.
;; query
(ExecuteThreaded (Number 0) (Set (Plus (Number 1) (Number 2))))
;; expect-error
the number of threads must be 1 or more
