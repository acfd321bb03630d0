; Grouped semantics, literally: the Always clause holds only $w, so groups
; are keyed by ($basket, $ball), one weight each; only (basket2, b4) with
; weight 5 is dropped, and basket2 stays through b3.
;; data
(Member (Concept "b1") (Concept "basket1"))
(Member (Concept "b2") (Concept "basket1"))
(Member (Concept "b3") (Concept "basket2"))
(Member (Concept "b4") (Concept "basket2"))
(Evaluation (Predicate "weight") (List (Concept "b1") (Number 12)))
(Evaluation (Predicate "weight") (List (Concept "b2") (Number 15)))
(Evaluation (Predicate "weight") (List (Concept "b3") (Number 20)))
(Evaluation (Predicate "weight") (List (Concept "b4") (Number 5)))
;; query
(Bind (VariableList (Variable "$basket") (Variable "$ball") (Variable "$w"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Evaluation (Predicate "weight") (List (Variable "$ball") (Variable "$w")))
    (Always (GreaterThan (Variable "$w") (Number 10))))
  (List (Variable "$basket") (Variable "$ball")))
;; expect
(Set
  (List (Concept "basket1") (Concept "b1"))
  (List (Concept "basket1") (Concept "b2"))
  (List (Concept "basket2") (Concept "b3")))
