; A conjunction whose clauses are grounded in different spaces.
;; data
(Member (Concept "Ben") (Concept "team"))
(Member (Concept "Linas") (Concept "team"))
;; child-data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Nil") (Concept "human"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Member (Variable "$x") (Concept "team"))))
;; expect
(Set (Concept "Ben"))
