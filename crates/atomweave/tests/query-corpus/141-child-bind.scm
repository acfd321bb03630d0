; A BindLink in a child space: rewrites from base and child groundings.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; child-data
(Inheritance (Concept "Nil") (Concept "human"))
;; query
(Bind (Inheritance (Variable "$x") (Concept "human"))
  (Evaluation (Predicate "mortal") (List (Variable "$x"))))
;; expect
(Set
  (Evaluation (Predicate "mortal") (List (Concept "Ben")))
  (Evaluation (Predicate "mortal") (List (Concept "Nil"))))
