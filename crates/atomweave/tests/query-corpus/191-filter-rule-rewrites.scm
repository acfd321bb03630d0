; A Rule rewrites each match; members that do not match are dropped.
;; data
(Concept "x")
;; query
(Filter (Rule (VariableList (Variable "$a") (Variable "$b")) (Inheritance (Variable "$a") (Variable "$b"))
              (Evaluation (Predicate "is-a") (List (Variable "$b") (Variable "$a"))))
        (Set (Inheritance (Concept "cat") (Concept "animal")) (Similarity (Concept "oak") (Concept "elm"))))
;; expect
(Set (Evaluation (Predicate "is-a") (List (Concept "animal") (Concept "cat"))))
