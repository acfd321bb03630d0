; Sleep cannot sleep a negative time.
;; data
(Concept "x")
;; query
(Sleep (Number -1))
;; expect-error
cannot sleep
