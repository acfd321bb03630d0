; A SignNode in a pattern matches any atom of its type, and is no result.
;; data
(Evaluation (Predicate "foo") (List (Concept "A") (Concept "B")))
(Evaluation (Predicate "foo") (List (Number 5) (Concept "C")))
;; query
(Meet (Variable "$x") (Evaluation (Predicate "foo") (List (Sign "ConceptNode") (Variable "$x"))))
;; expect-atoms
(Concept "B")
