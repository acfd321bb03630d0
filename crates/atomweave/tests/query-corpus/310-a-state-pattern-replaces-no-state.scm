; A StateLink with a variable is a pattern, not a state: building one
; (in a query) removes no other StateLink of its anchor.
;; data
(State (Concept "you") (Concept "thirsty"))
(State (Concept "me") (Concept "hungry"))
;; query
(Get (TypedVariable (Variable "someone") (Type "ConceptNode"))
  (Or (Present (State (Variable "someone") (Concept "hungry")))
      (Present (State (Variable "someone") (Concept "thirsty")))))
;; expect
(Set (Concept "me") (Concept "you"))
