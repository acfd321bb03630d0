; The same variable in two unordered clauses.
;; data
(Similarity (Concept "a") (Concept "b"))
(Similarity (Concept "b") (Concept "c"))
(Similarity (Concept "d") (Concept "a"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Similarity (Variable "$x") (Variable "$y"))
    (Similarity (Variable "$y") (Variable "$z"))
    (Not (Identical (Variable "$x") (Variable "$z")))))
;; expect
(Set
  (List (Concept "a") (Concept "b") (Concept "c"))
  (List (Concept "c") (Concept "b") (Concept "a"))
  (List (Concept "b") (Concept "a") (Concept "d"))
  (List (Concept "d") (Concept "a") (Concept "b")))
