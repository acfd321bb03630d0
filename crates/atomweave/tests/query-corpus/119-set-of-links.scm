; A SetLink of ordered links holding variables, matched in either order.
;; data
(Set (List (Concept "a") (Number 1)) (List (Concept "b") (Number 2)))
(Set (List (Concept "b") (Number 3)) (List (Concept "a") (Number 4)))
(Set (List (Concept "a") (Number 5)) (List (Concept "c") (Number 6)))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (Set (List (Concept "a") (Variable "$x")) (List (Concept "b") (Variable "$y"))))
;; expect
(Set (List (Number 1) (Number 2)) (List (Number 4) (Number 3)))
