; An AbsentLink around an evaluatable clause is "not": keep the groundings
; for which it evaluates false.
;; data
(Evaluation (Predicate "age") (List (Concept "Ann") (Number 30)))
(Evaluation (Predicate "age") (List (Concept "Bob") (Number 8)))
(Evaluation (Predicate "age") (List (Concept "Cy") (Number 12)))
;; query
(Get (VariableList (Variable "$p") (Variable "$a"))
  (And
    (Evaluation (Predicate "age") (List (Variable "$p") (Variable "$a")))
    (Absent (GreaterThan (Variable "$a") (Number 10)))))
;; expect
(Set (List (Concept "Bob") (Number 8)))
