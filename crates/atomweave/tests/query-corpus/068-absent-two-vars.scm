; Absent clause over two variables both bound by present clauses: pairs of
; friends-of-friends who are not already friends.
;; data
(Evaluation (Predicate "friend") (List (Concept "A") (Concept "B")))
(Evaluation (Predicate "friend") (List (Concept "B") (Concept "C")))
(Evaluation (Predicate "friend") (List (Concept "B") (Concept "D")))
(Evaluation (Predicate "friend") (List (Concept "A") (Concept "C")))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Evaluation (Predicate "friend") (List (Variable "$x") (Variable "$y")))
    (Evaluation (Predicate "friend") (List (Variable "$y") (Variable "$z")))
    (Absent (Evaluation (Predicate "friend") (List (Variable "$x") (Variable "$z")))))
  (List (Variable "$x") (Variable "$z")))
;; expect
(Set (List (Concept "A") (Concept "D")))
