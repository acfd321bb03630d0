; Two variables: a ListLink of what they took, in declaration order.
;; data
(Concept "x")
;; query
(Filter (Lambda (VariableList (Variable "$b") (Variable "$a")) (Inheritance (Variable "$a") (Variable "$b")))
        (Set (Inheritance (Concept "cat") (Concept "animal")) (Inheritance (Concept "oak") (Concept "tree"))))
;; expect
(Set (List (Concept "animal") (Concept "cat")) (List (Concept "tree") (Concept "oak")))
