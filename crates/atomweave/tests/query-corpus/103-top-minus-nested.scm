; A top-level MinusLink over a nested PlusLink: 10 - (1 + 2).
;; data
;; query
(Minus (Number 10) (Plus (Number 1) (Number 2)))
;; expect
(Number 7)
