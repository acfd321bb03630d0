; A top-level PlusLink: the NumberNode it computes.
;; data
;; query
(Plus (Number 2) (Number 3))
;; expect
(Number 5)
