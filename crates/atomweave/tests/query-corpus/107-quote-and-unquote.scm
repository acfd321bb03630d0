; QuoteLink around an AndLink: matches a literal AndLink (in any order of
; its members), the unquoted $x inside it a variable.
;; data
(And (Concept "a") (Concept "b"))
(And (Concept "c") (Concept "a"))
(And (Concept "d") (Concept "e"))
;; query
(Get (Variable "$x") (Quote (And (Concept "a") (Unquote (Variable "$x")))))
;; expect
(Set (Concept "b") (Concept "c"))
