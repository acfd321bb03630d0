; What a PutLink reduces to is run when it is code: here arithmetic.
;; query
(Put (Lambda (Variable "$x") (Plus (Variable "$x") (Number 1))) (Number 2))
;; expect
(Number 3)
