; One clause's constant has no data: the conjunction is empty.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Member (Variable "$x") (Concept "nowhere"))))
;; expect
(Set)
