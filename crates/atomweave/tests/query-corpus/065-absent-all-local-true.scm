; An Absent clause whose only variable is local: "no robot exists" holds
; (the query's own (Inheritance $r robot) does not count).
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Bind (VariableList (Variable "$x") (Variable "$r"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Inheritance (Variable "$r") (Concept "robot"))))
  (Variable "$x"))
;; expect
(Set (Concept "Ben") (Concept "Linas"))
