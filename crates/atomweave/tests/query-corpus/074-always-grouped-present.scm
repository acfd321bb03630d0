; Grouped semantics with a plain (present-type) Always clause: it holds only
; $c, so groups are keyed by ($basket, $ball); ball1 (red, warm) is kept,
; ball2 (blue, not warm) is dropped, although both are in basket1.
;; data
(Member (Concept "ball1") (Concept "basket1"))
(Member (Concept "ball2") (Concept "basket1"))
(Evaluation (Predicate "color") (List (Concept "ball1") (Concept "red")))
(Evaluation (Predicate "color") (List (Concept "ball2") (Concept "blue")))
(Inheritance (Concept "red") (Concept "warm"))
;; query
(Bind (VariableList (Variable "$basket") (Variable "$ball") (Variable "$c"))
  (And
    (Member (Variable "$ball") (Variable "$basket"))
    (Evaluation (Predicate "color") (List (Variable "$ball") (Variable "$c")))
    (Always (Inheritance (Variable "$c") (Concept "warm"))))
  (List (Variable "$basket") (Variable "$ball")))
;; expect
(Set (List (Concept "basket1") (Concept "ball1")))
