; Sleep for no time gives (Number 0), the time not slept.
;; data
(Concept "x")
;; query
(Sleep (Number 0))
;; expect
(Number 0)
