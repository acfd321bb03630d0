; A QueryLink with an unbound rewrite variable.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Query (Variable "$x")
  (Inheritance (Variable "$x") (Concept "human"))
  (List (Variable "$x") (Variable "$q")))
;; expect-error
$q
