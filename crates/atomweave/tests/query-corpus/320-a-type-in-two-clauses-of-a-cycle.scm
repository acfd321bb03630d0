; The same link holding a type (a SignNode) in two clauses of a triangle:
; both must be grounded with the same atom for it, as one variable.
;; data
(Inheritance (Concept "A") (Concept "B"))
(Inheritance (Concept "B") (Concept "C"))
(Inheritance (Concept "C") (Concept "A"))
(Evaluation (Predicate "p") (List (Concept "A") (Concept "u")))
(Member (Concept "B") (List (Concept "A") (Concept "w")))
;; query
(Get (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Inheritance (Variable "$x") (Variable "$y"))
    (Inheritance (Variable "$y") (Variable "$z"))
    (Inheritance (Variable "$z") (Variable "$x"))
    (Evaluation (Predicate "p") (List (Variable "$x") (Sign "ConceptNode")))
    (Member (Variable "$y") (List (Variable "$x") (Sign "ConceptNode")))))
;; expect
(Set)
