; Two globs around a constant that occurs twice: two ways to split.
; (List x q) leaves nothing for $a.
;; data
(List (Concept "p") (Concept "x") (Concept "q") (Concept "x") (Concept "r"))
(List (Concept "x") (Concept "q"))
;; query
(Get (VariableList (Glob "$a") (Glob "$b"))
  (List (Glob "$a") (Concept "x") (Glob "$b")))
;; expect
(Set
  (List (List (Concept "p")) (List (Concept "q") (Concept "x") (Concept "r")))
  (List (List (Concept "p") (Concept "x") (Concept "q")) (List (Concept "r"))))
