; GreaterThanLink over a PlusLink of two grounded variables.
;; data
(Evaluation (Predicate "pair") (List (Number 1) (Number 2)))
(Evaluation (Predicate "pair") (List (Number 3) (Number 4)))
(Evaluation (Predicate "pair") (List (Number 2) (Number 3)))
;; query
(Get (VariableList (Variable "$a") (Variable "$b"))
  (And
    (Evaluation (Predicate "pair") (List (Variable "$a") (Variable "$b")))
    (GreaterThan (Plus (Variable "$a") (Variable "$b")) (Number 5))))
;; expect
(Set (List (Number 3) (Number 4)))
