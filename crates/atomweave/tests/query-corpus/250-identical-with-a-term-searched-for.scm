; A variable identical to a term holding variables left free: the term is
; searched for in the space, and the variable is the atom found.
;; data
(Evaluation (Predicate "likes") (Concept "tea"))
(Evaluation (Predicate "likes") (Concept "rain"))
(Evaluation (Predicate "hates") (Concept "tea"))
;; query
(Get (VariableList (Variable "$what") (Variable "$e"))
     (Identical (Variable "$e") (Evaluation (Predicate "likes") (Variable "$what"))))
;; expect
(Set (List (Concept "tea") (Evaluation (Predicate "likes") (Concept "tea")))
     (List (Concept "rain") (Evaluation (Predicate "likes") (Concept "rain"))))
