; Three declared variables, rewrite uses two of them.
;; data
(Evaluation (Predicate "parent") (List (Concept "A") (Concept "B")))
(Evaluation (Predicate "parent") (List (Concept "B") (Concept "C")))
(Evaluation (Predicate "parent") (List (Concept "C") (Concept "D")))
(Evaluation (Predicate "parent") (List (Concept "B") (Concept "E")))
(Evaluation (Predicate "friend") (List (Concept "A") (Concept "C")))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Evaluation (Predicate "parent") (List (Variable "$x") (Variable "$y")))
    (Evaluation (Predicate "parent") (List (Variable "$y") (Variable "$z"))))
  (Evaluation (Predicate "grandparent") (List (Variable "$x") (Variable "$z"))))
;; expect
(Set
  (Evaluation (Predicate "grandparent") (List (Concept "A") (Concept "C")))
  (Evaluation (Predicate "grandparent") (List (Concept "A") (Concept "E")))
  (Evaluation (Predicate "grandparent") (List (Concept "B") (Concept "D"))))
