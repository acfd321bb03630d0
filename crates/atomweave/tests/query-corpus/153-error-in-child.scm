; A bad query in a child space adds nothing to the child.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; child-data
(Inheritance (Concept "Nil") (Concept "human"))
;; query
(Bind (Variable "$x")
  (Inheritance (Variable "$x") (Concept "human"))
  (Evaluation (Predicate "knows") (List (Variable "$x") (Variable "$who"))))
;; expect-error
$who
