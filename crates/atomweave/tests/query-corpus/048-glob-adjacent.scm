; Two adjacent globs (one or more each) split three members two ways. The
; result ListLinks are not matched in turn.
;; data
(List (Concept "p") (Concept "q") (Concept "r"))
;; query
(Get (VariableList (Glob "$a") (Glob "$b"))
  (List (Glob "$a") (Glob "$b")))
;; expect
(Set
  (List (List (Concept "p")) (List (Concept "q") (Concept "r")))
  (List (List (Concept "p") (Concept "q")) (List (Concept "r"))))
