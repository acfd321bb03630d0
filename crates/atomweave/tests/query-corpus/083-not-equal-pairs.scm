; NotLink of EqualLink: ordered pairs of distinct humans.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Inheritance (Variable "$y") (Concept "human"))
    (Not (Equal (Variable "$x") (Variable "$y")))))
;; expect
(Set (List (Concept "Ben") (Concept "Linas")) (List (Concept "Linas") (Concept "Ben")))
