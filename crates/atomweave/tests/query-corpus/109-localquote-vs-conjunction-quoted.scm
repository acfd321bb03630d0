; LocalQuote of an AndLink of clauses: only the literal AndLink (Ben's)
; matches; Linas's two links are not inside an AndLink.
;; data
(And
  (Inheritance (Concept "Ben") (Concept "human"))
  (Inheritance (Concept "Ben") (Concept "mortal")))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "mortal"))
;; query
(Get (LocalQuote (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Variable "$x") (Concept "mortal")))))
;; expect
(Set (Concept "Ben"))
