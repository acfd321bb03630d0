; A rewrite variable ($y) neither declared nor in the body: refused, nothing added.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Bind (Variable "$x")
  (Inheritance (Variable "$x") (Concept "human"))
  (List (Variable "$x") (Variable "$y")))
;; expect-error
$y
