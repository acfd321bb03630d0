; A PutLink builds what it quotes, substituting only where unquoted: the
; quote keeps the BindLink from being run while it is assembled; the Bind
; built is then run, as any executable result of a Put is (upstream's).
;; data
(Concept "c")
;; query
(Put (Variable "$x") (Quote (Bind (Unquote (Variable "$x")) (Concept "r"))) (Concept "c"))
;; expect
(Set (Concept "r"))
