; A PutLink builds what it quotes, substituting only where unquoted: the
; quote keeps the BindLink from being run while it is assembled.
;; data
(Concept "c")
;; query
(Put (Variable "$x") (Quote (Bind (Unquote (Variable "$x")) (Concept "r"))) (Concept "c"))
;; expect
(Bind (Concept "c") (Concept "r"))
