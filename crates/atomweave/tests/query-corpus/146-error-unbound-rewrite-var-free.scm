; As error-unbound-rewrite-var, without a declaration.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Bind (Inheritance (Variable "$x") (Concept "human"))
  (Evaluation (Predicate "p") (List (Variable "$z"))))
;; expect-error
$z
