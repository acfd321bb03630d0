; ThreadJoin is false when any member is.
;; query
(ThreadJoin (True) (False))
;; expect-tv
(stv 0 1)
