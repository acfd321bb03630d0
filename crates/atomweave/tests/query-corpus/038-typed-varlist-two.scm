; VariableList of two TypedVariableLinks with different types.
;; data
(Evaluation (Predicate "has") (List (Concept "a") (Number 1)))
(Evaluation (Predicate "has") (List (Concept "b") (Concept "c")))
(Evaluation (Predicate "has") (List (Predicate "q") (Number 2)))
;; query
(Get (VariableList
       (TypedVariable (Variable "$x") (Type "ConceptNode"))
       (TypedVariable (Variable "$y") (Type "NumberNode")))
  (Evaluation (Predicate "has") (List (Variable "$x") (Variable "$y"))))
;; expect
(Set (List (Concept "a") (Number 1)))
