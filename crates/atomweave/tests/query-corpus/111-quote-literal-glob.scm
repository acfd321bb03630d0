; A quoted GlobNode is a plain atom: (List a (Glob "$lit")) matches, (List a b)
; does not; the only variable is the unquoted $x.
;; data
(List (Concept "a") (Glob "$lit"))
(List (Concept "b") (Glob "$lit"))
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
;; query
(Get (Quote (List (Unquote (Variable "$x")) (Glob "$lit"))))
;; expect
(Set (Concept "a") (Concept "b"))
