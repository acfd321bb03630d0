; ExecuteThreaded runs the members of a SetLink on N threads and gives
; their results in a queue (with one thread, in the set's order).
;; query
(ExecuteThreaded (Number 1) (Set (Plus (Number 1) (Number 2)) (Times (Number 2) (Number 3))))
;; expect-value
(QueueValue (NumberNode "3")(NumberNode "6"))
