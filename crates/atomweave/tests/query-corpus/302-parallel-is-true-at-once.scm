; Parallel starts each member on a thread and does not wait: it is true
; at once.
;; query
(Parallel (True (Sleep (Number 0.01))))
;; expect-tv
(stv 1 1)
