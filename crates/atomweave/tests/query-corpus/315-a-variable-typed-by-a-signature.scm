; A variable typed by a Signature grounds the atoms of that shape (types
; where the signature has types, the same atoms elsewhere).
;; data
(Evaluation (Predicate "foo") (List (Concept "bingo") (Concept "yes")))
(Evaluation (Anchor "bar") (List (Concept "hurrah") (Concept "yay")))
(Evaluation (Concept "baz") (List (Concept "oops") (Concept "no")))
;; query
(Get (TypedVariable (Variable "$x") (Signature (Evaluation (TypeChoice (Type "PredicateNode") (Type "AnchorNode")) (List (Type "ConceptNode") (Type "ConceptNode")))))
  (And (Variable "$x")))
;; expect
(Set (Evaluation (Predicate "foo") (List (Concept "bingo") (Concept "yes"))) (Evaluation (Anchor "bar") (List (Concept "hurrah") (Concept "yay"))))
