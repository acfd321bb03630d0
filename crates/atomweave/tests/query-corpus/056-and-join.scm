; AndLink of clauses sharing $x.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Member (Concept "Ben") (Concept "team"))
(Member (Concept "Rex") (Concept "team"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Member (Variable "$x") (Concept "team"))))
;; expect
(Set (Concept "Ben"))
