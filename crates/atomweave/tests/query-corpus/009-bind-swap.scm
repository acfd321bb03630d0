; Rewrite that reverses each Inheritance; the reversed links it adds must not
; be matched in turn (no (Inheritance Ben human) coming back as a rewrite).
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Bind (VariableList (Variable "$a") (Variable "$b"))
  (Inheritance (Variable "$a") (Variable "$b"))
  (Inheritance (Variable "$b") (Variable "$a")))
;; expect
(Set (Inheritance (Concept "human") (Concept "Ben")) (Inheritance (Concept "dog") (Concept "Rex")))
