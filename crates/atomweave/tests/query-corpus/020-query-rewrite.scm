; QueryLink: the rewrites as a LinkValue.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Query (Inheritance (Variable "$x") (Concept "human"))
  (Evaluation (Predicate "mortal") (List (Variable "$x"))))
;; expect-atoms
(Evaluation (Predicate "mortal") (List (Concept "Ben")))
(Evaluation (Predicate "mortal") (List (Concept "Linas")))
