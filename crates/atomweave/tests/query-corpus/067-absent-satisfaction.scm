; SatisfactionLink with an AbsentLink: some human (Linas) owns nothing.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Nil") (Concept "human"))
(Evaluation (Predicate "owns") (List (Concept "Ben") (Concept "car")))
(Evaluation (Predicate "owns") (List (Concept "Nil") (Number 3)))
;; query
(Satisfaction (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Evaluation (Predicate "owns") (List (Variable "$x") (Variable "$y"))))))
;; expect-tv
(stv 1 1)
