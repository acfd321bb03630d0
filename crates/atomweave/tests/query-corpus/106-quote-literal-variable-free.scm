; As quote-literal-variable without a declaration: the quoted $v is not a
; free variable, so the only variable is $x.
;; data
(Inheritance (Variable "$v") (Concept "a"))
(Inheritance (Variable "$w") (Concept "b"))
(Inheritance (Concept "c") (Concept "d"))
;; query
(Get (Quote (Inheritance (Variable "$v") (Unquote (Variable "$x")))))
;; expect
(Set (Concept "a"))
