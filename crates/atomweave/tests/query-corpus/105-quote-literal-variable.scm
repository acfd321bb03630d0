; QuoteLink: (Variable "$v") inside is a plain atom; only the unquoted $x is
; a variable.
;; data
(Inheritance (Variable "$v") (Concept "a"))
(Inheritance (Variable "$w") (Concept "b"))
(Inheritance (Concept "c") (Concept "d"))
;; query
(Get (Variable "$x")
  (Quote (Inheritance (Variable "$v") (Unquote (Variable "$x")))))
;; expect
(Set (Concept "a"))
