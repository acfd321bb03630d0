; Two variables in an unordered link: both permutations are groundings.
;; data
(Similarity (Concept "a") (Concept "b"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (Similarity (Variable "$x") (Variable "$y")))
;; expect
(Set (List (Concept "a") (Concept "b")) (List (Concept "b") (Concept "a")))
