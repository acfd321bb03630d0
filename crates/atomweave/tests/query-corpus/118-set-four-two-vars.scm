; Four-member SetLink, two constants and two variables.
;; data
(Set (Concept "a") (Concept "b") (Concept "c") (Concept "d"))
(Set (Concept "a") (Concept "b") (Concept "c") (Concept "e"))
(Set (Concept "c") (Concept "d") (Concept "e"))
;; query
(Get (VariableList (Variable "$w") (Variable "$x"))
  (Set (Variable "$w") (Variable "$x") (Concept "c") (Concept "d")))
;; expect
(Set (List (Concept "a") (Concept "b")) (List (Concept "b") (Concept "a")))
