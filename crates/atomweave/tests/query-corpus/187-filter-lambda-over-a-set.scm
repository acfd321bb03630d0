; FilterLink with a Lambda over a SetLink: each member matched against the
; body; what the variable took, for the members that match, in a SetLink.
;; data
(Evaluation (Predicate "colour") (List (Concept "sky") (Concept "blue")))
;; query
(Filter (Lambda (Variable "$c") (Evaluation (Predicate "colour") (List (Concept "sky") (Variable "$c"))))
        (Set (Evaluation (Predicate "colour") (List (Concept "sky") (Concept "blue")))
             (Evaluation (Predicate "colour") (List (Concept "sky") (Concept "grey")))
             (Evaluation (Predicate "colour") (List (Concept "sea") (Concept "green")))
             (Evaluation (Predicate "size") (List (Concept "sky") (Concept "big")))))
;; expect
(Set (Concept "blue") (Concept "grey"))
