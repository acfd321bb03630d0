; A PutLink whose arguments are a GetLink runs it first, then puts each
; grounding in.
;; data
(Inheritance (Concept "cat") (Concept "animal"))
;; query
(Put (List (Variable "$x") (Concept "seen")) (Get (Inheritance (Variable "$y") (Concept "animal"))))
;; expect
(Set (List (Concept "cat") (Concept "seen")))
