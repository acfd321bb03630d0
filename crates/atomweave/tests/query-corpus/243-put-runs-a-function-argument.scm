; A PutLink's argument that is a function runs before it is put in.
;; data
(State (Anchor "n") (Number 1))
;; query
(Put (State (Anchor "n") (Variable "$x")) (Plus (Number 1) (Get (State (Anchor "n") (Variable "$y")))))
;; expect
(State (Anchor "n") (Number 2))
