; AlwaysLink where no group passes.
;; data
(Member (Concept "ball1") (Concept "basket1"))
(Member (Concept "ball2") (Concept "basket1"))
(Member (Concept "ball3") (Concept "basket2"))
(Evaluation (Predicate "color") (List (Concept "ball1") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball2") (Concept "blue")))
(Evaluation (Predicate "color") (List (Concept "ball3") (Concept "green")))
;; query
(Bind (VariableList (Variable "$basket") (Variable "$ball"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Always (Evaluation (Predicate "color") (List (Variable "$ball") (Concept "red")))))
  (Variable "$basket"))
;; expect
(Set)
