; A SetLink with a repeated member; duplicate groundings count once, so
; (Set a a b) gives (a a) once; (Set a b c) gives (a c) and (c a).
;; data
(Set (Concept "a") (Concept "a") (Concept "b"))
(Set (Concept "a") (Concept "b") (Concept "c"))
(Set (Concept "a") (Concept "c") (Concept "d"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (Set (Variable "$x") (Variable "$y") (Concept "b")))
;; expect
(Set
  (List (Concept "a") (Concept "a"))
  (List (Concept "a") (Concept "c"))
  (List (Concept "c") (Concept "a")))
