; Where a number is wanted, a GetLink's SetLink of one number stands for it.
;; data
(State (Anchor "counter") (Number 41))
;; query
(Plus (Number 1) (Get (State (Anchor "counter") (Variable "$n"))))
;; expect
(Number 42)
