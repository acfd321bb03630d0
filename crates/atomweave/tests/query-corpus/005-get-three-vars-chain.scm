; AndLink of two clauses sharing $y: parent chains x -> y -> z.
;; data
(Evaluation (Predicate "parent") (List (Concept "A") (Concept "B")))
(Evaluation (Predicate "parent") (List (Concept "B") (Concept "C")))
(Evaluation (Predicate "parent") (List (Concept "C") (Concept "D")))
(Evaluation (Predicate "parent") (List (Concept "B") (Concept "E")))
(Evaluation (Predicate "friend") (List (Concept "A") (Concept "C")))
;; query
(Get (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Evaluation (Predicate "parent") (List (Variable "$x") (Variable "$y")))
    (Evaluation (Predicate "parent") (List (Variable "$y") (Variable "$z")))))
;; expect
(Set
  (List (Concept "A") (Concept "B") (Concept "C"))
  (List (Concept "A") (Concept "B") (Concept "E"))
  (List (Concept "B") (Concept "C") (Concept "D")))
