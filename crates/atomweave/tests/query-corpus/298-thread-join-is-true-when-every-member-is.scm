; ThreadJoin evaluates each member on a thread of its own and waits for
; all: true when every member is.
;; query
(ThreadJoin (True) (Equal (Number 1) (Number 1)) (Not (False)))
;; expect-tv
(stv 1 1)
