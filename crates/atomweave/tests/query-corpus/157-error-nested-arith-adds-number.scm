; Top-level arithmetic executes its members one by one and adds each result:
; (Number 3) is added by the inner Plus before the outer one fails.
;; data
(Concept "x")
;; query
(Plus (Plus (Number 1) (Number 2)) (Concept "x"))
;; expect-error
does not compute numbers
