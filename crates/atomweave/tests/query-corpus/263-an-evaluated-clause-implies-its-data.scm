; An evaluated clause whose variable no present clause grounds: the data
; inside it (here the Evaluation under IsTrue, and under StrengthOf) must
; be present, and grounds it.
;; data
(State (Concept "you") (Concept "thirsty"))
(Evaluation (stv 1 1) (Predicate "cold") (Concept "me"))
(Evaluation (stv 0.6 0.1) (Predicate "tired") (Concept "her"))
;; query
(Get (TypedVariable (Variable "$s") (Type "ConceptNode"))
     (Or (Present (State (Variable "$s") (Concept "thirsty")))
         (IsTrue (Evaluation (Predicate "cold") (Variable "$s")))
         (GreaterThan (StrengthOf (Evaluation (Predicate "tired") (Variable "$s"))) (Number 0.5))))
;; expect
(Set (Concept "you") (Concept "me") (Concept "her"))
