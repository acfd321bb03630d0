; GreaterThan of a GetLink's one number.
;; data
(State (Anchor "count") (Number 3))
;; query
(GreaterThan (Number 10) (Get (State (Anchor "count") (Variable "$n"))))
;; expect-tv
(stv 1 1)
