; TrueLink, evaluated: its members run (here a Put sets a state), and it holds.
;; data
(State (Anchor "s") (Number 0))
;; query
(SequentialAnd (True (Put (State (Anchor "s") (Variable "$x")) (Number 5)))
               (Equal (Get (State (Anchor "s") (Variable "$y"))) (Set (Number 5))))
;; expect-tv
(stv 1 1)
