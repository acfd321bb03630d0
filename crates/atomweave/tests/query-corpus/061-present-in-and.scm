; PresentLinks as members of an AndLink.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Present (Inheritance (Variable "$x") (Concept "human")))
    (Present (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y"))))))
;; expect
(Set (List (Concept "Ben") (Concept "pizza")) (List (Concept "Linas") (Concept "tea")))
