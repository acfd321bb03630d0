; ChoiceLink inside a term whose alternatives hold the variable.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "tea")))
(Evaluation (Predicate "likes") (List (Concept "tea") (Concept "Linas")))
(Evaluation (Predicate "likes") (List (Concept "Rex") (Concept "bone")))
;; query
(Get (Evaluation (Predicate "likes")
  (Choice
    (List (Variable "$x") (Concept "tea"))
    (List (Concept "tea") (Variable "$x")))))
;; expect
(Set (Concept "Ben") (Concept "Linas"))
