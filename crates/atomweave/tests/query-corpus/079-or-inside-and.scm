; OrLink of clauses inside an AndLink, joined on $x.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "R2") (Concept "robot"))
(Inheritance (Concept "Rex") (Concept "dog"))
(Member (Concept "Ben") (Concept "team"))
(Member (Concept "R2") (Concept "team"))
(Member (Concept "Rex") (Concept "team"))
;; query
(Get (And
  (Member (Variable "$x") (Concept "team"))
  (Or
    (Inheritance (Variable "$x") (Concept "human"))
    (Inheritance (Variable "$x") (Concept "robot")))))
;; expect
(Set (Concept "Ben") (Concept "R2"))
