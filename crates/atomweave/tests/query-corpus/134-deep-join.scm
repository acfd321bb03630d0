; A variable three levels down joined with a shallow clause.
;; data
(Evaluation (Predicate "holds") (List (Concept "box1") (List (List (Concept "ruby")))))
(Evaluation (Predicate "holds") (List (Concept "box2") (List (List (Concept "rock")))))
(Evaluation (Predicate "holds") (List (Concept "box3") (List (Concept "ruby"))))
(Inheritance (Concept "ruby") (Concept "gem"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Evaluation (Predicate "holds") (List (Variable "$x") (List (List (Variable "$y")))))
    (Inheritance (Variable "$y") (Concept "gem"))))
;; expect
(Set (List (Concept "box1") (Concept "ruby")))
