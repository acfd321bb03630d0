; A variable one alternative of an OrLink grounds and another does not:
; in the other's results it stands for itself, as upstream reports it.
;; data
(State (List (Concept "alice") (Predicate "hungry")) (Concept "TRUE"))
(State (Concept "alice") (Concept "at home"))
;; query
(Get (VariableList (TypedVariable (Variable "x") (Type "ConceptNode")) (TypedVariable (Variable "y") (Type "ConceptNode")))
     (Or (Present (State (Variable "x") (Variable "y")))
         (Present (State (List (Variable "x") (Predicate "hungry")) (Concept "TRUE")))))
;; expect
(Set (List (Concept "alice") (Concept "at home")) (List (Concept "alice") (Variable "y")))
