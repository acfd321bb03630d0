; As always-baskets, as a GetLink: every grounding of the kept group.
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
(Get (VariableList (Variable "$basket") (Variable "$ball"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Always (Evaluation (Predicate "color") (List (Variable "$ball") (Concept "red"))))))
;; expect
(Set
  (List (Concept "basket1") (Concept "ball1"))
  (List (Concept "basket1") (Concept "ball2")))
