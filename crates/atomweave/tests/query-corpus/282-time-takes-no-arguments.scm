; TimeLink takes no arguments.
;; data
(Concept "x")
;; query
(Time (Number 1))
;; expect-error
takes no arguments
