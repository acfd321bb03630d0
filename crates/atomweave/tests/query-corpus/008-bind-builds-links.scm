; BindLink whose rewrite builds new links around the grounding.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Bind (Inheritance (Variable "$x") (Concept "human"))
  (Evaluation (Predicate "mortal") (List (Variable "$x"))))
;; expect
(Set
  (Evaluation (Predicate "mortal") (List (Concept "Ben")))
  (Evaluation (Predicate "mortal") (List (Concept "Linas"))))
