; A variable standing for a whole nested link, reused in a second clause.
;; data
(Evaluation (Predicate "said") (List (Concept "Ann") (Evaluation (Predicate "is") (List (Concept "sky") (Concept "blue")))))
(Evaluation (Predicate "said") (List (Concept "Bob") (Evaluation (Predicate "is") (List (Concept "grass") (Concept "red")))))
(Evaluation (Predicate "true") (Evaluation (Predicate "is") (List (Concept "sky") (Concept "blue"))))
;; query
(Get (VariableList (Variable "$who") (Variable "$claim"))
  (And
    (Evaluation (Predicate "said") (List (Variable "$who") (Variable "$claim")))
    (Evaluation (Predicate "true") (Variable "$claim"))))
;; expect
(Set (List (Concept "Ann") (Evaluation (Predicate "is") (List (Concept "sky") (Concept "blue")))))
