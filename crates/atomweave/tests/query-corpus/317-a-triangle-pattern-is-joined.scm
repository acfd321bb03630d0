; Three clauses closing a cycle over their variables: the search binds one
; variable at a time (a worst-case-optimal join); the groundings are the
; triangles a < b < c of the stored direction, each once.
;; data
(Evaluation (Predicate "edge") (List (Concept "a") (Concept "b")))
(Evaluation (Predicate "edge") (List (Concept "b") (Concept "c")))
(Evaluation (Predicate "edge") (List (Concept "a") (Concept "c")))
(Evaluation (Predicate "edge") (List (Concept "c") (Concept "d")))
(Evaluation (Predicate "edge") (List (Concept "b") (Concept "d")))
(Evaluation (Predicate "edge") (List (Concept "d") (Concept "e")))
(Evaluation (Predicate "edge") (List (Concept "c") (Concept "c")))
(Evaluation (Predicate "other") (List (Concept "a") (Concept "e")))
;; query
(Meet (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Evaluation (Predicate "edge") (List (Variable "$x") (Variable "$y")))
    (Evaluation (Predicate "edge") (List (Variable "$y") (Variable "$z")))
    (Evaluation (Predicate "edge") (List (Variable "$x") (Variable "$z")))))
;; expect-atoms
(List (Concept "a") (Concept "b") (Concept "c"))
(List (Concept "b") (Concept "c") (Concept "d"))
(List (Concept "a") (Concept "c") (Concept "c"))
(List (Concept "b") (Concept "c") (Concept "c"))
(List (Concept "c") (Concept "c") (Concept "c"))
(List (Concept "c") (Concept "c") (Concept "d"))
