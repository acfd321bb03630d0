; AlwaysLink whose clause holds two variables ($ball, $color): groundings are
; grouped by $basket alone; baskets whose balls all have the basket's label
; colour (basket2 has a blue ball under a red label).
;; data
(Member (Concept "ball1") (Concept "basket1"))
(Member (Concept "ball2") (Concept "basket1"))
(Member (Concept "ball3") (Concept "basket2"))
(Member (Concept "ball4") (Concept "basket2"))
(Evaluation (Predicate "label") (List (Concept "basket1") (Concept "green")))
(Evaluation (Predicate "label") (List (Concept "basket2") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball1") (Concept "green")))
(Evaluation (Predicate "color") (List (Concept "ball2") (Concept "green")))
(Evaluation (Predicate "color") (List (Concept "ball3") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball4") (Concept "blue")))
;; query
(Bind (VariableList (Variable "$basket") (Variable "$ball") (Variable "$color"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Evaluation (Predicate "label") (List (Variable "$basket") (Variable "$color")))
    (Always (Evaluation (Predicate "color") (List (Variable "$ball") (Variable "$color")))))
  (List (Variable "$basket") (Variable "$color")))
;; expect
(Set (List (Concept "basket1") (Concept "green")))
