; As absent-local-var, but the local $y is typed ConceptNode: Nil owns only
; a NumberNode, so Nil owns no concept either.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Nil") (Concept "human"))
(Evaluation (Predicate "owns") (List (Concept "Ben") (Concept "car")))
(Evaluation (Predicate "owns") (List (Concept "Nil") (Number 3)))
;; query
(Bind (VariableList (Variable "$x") (TypedVariable (Variable "$y") (Type "ConceptNode")))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Evaluation (Predicate "owns") (List (Variable "$x") (Variable "$y")))))
  (Evaluation (Predicate "owns-nothing") (List (Variable "$x"))))
;; expect
(Set
  (Evaluation (Predicate "owns-nothing") (List (Concept "Linas")))
  (Evaluation (Predicate "owns-nothing") (List (Concept "Nil"))))
