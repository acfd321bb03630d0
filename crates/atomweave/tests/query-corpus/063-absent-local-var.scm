; AbsentLink with a variable ($y) no present clause binds: it is local to the
; Absent clause; humans who own nothing at all.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Nil") (Concept "human"))
(Evaluation (Predicate "owns") (List (Concept "Ben") (Concept "car")))
(Evaluation (Predicate "owns") (List (Concept "Nil") (Number 3)))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y"))
  (And
    (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Evaluation (Predicate "owns") (List (Variable "$x") (Variable "$y")))))
  (Evaluation (Predicate "owns-nothing") (List (Variable "$x"))))
;; expect
(Set (Evaluation (Predicate "owns-nothing") (List (Concept "Linas"))))
