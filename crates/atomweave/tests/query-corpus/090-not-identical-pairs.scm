; NotLink of IdenticalLink: only the off-diagonal pairs.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Concept "b") (Concept "bag"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Member (Variable "$x") (Concept "bag"))
    (Member (Variable "$y") (Concept "bag"))
    (Not (Identical (Variable "$x") (Variable "$y")))))
;; expect
(Set (List (Concept "a") (Concept "b")) (List (Concept "b") (Concept "a")))
