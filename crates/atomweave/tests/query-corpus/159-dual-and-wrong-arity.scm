; DualLink over a pattern whose type the compiler splits into clauses
; (AndLink, PresentLink): dual() unifies only alternatives[0][0], the first
; clause's term, with the whole term, so (And (Variable "$x") (Variable "$y"))
; is reported as grounded by the one-member (And (Concept "a")).
;; data
(And (Variable "$x") (Variable "$y"))
(Present (Variable "$p") (Variable "$q"))
;; query
(Dual (And (Concept "a")))
;; expect
(Set)
