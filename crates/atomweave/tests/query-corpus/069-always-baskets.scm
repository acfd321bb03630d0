; AlwaysLink: groundings grouped by $basket (the variable not in the Always
; clause); only basket1 has every ball red.
;; data
(Member (Concept "ball1") (Concept "basket1"))
(Member (Concept "ball2") (Concept "basket1"))
(Member (Concept "ball3") (Concept "basket2"))
(Member (Concept "ball4") (Concept "basket2"))
(Member (Concept "ball5") (Concept "basket3"))
(Evaluation (Predicate "color") (List (Concept "ball1") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball2") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball3") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball4") (Concept "blue")))
(Evaluation (Predicate "color") (List (Concept "ball5") (Concept "blue")))
;; query
(Bind (VariableList (Variable "$basket") (Variable "$ball"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Always (Evaluation (Predicate "color") (List (Variable "$ball") (Concept "red")))))
  (Variable "$basket"))
;; expect
(Set (Concept "basket1"))
