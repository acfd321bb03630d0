; IsTrueLink as a clause: holds for a grounding whose atom is exactly true.
;; data
(Evaluation (stv 1 1) (Predicate "cold") (Concept "me"))
(Evaluation (stv 0.6 0.1) (Predicate "cold") (Concept "her"))
;; query
(Get (TypedVariable (Variable "$s") (Type "ConceptNode"))
     (And (Present (Evaluation (Predicate "cold") (Variable "$s")))
          (IsTrue (Evaluation (Predicate "cold") (Variable "$s")))))
;; expect
(Set (Concept "me"))
