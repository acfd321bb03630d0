; A DefinedPredicate in a query body stands for the pattern it names,
; its variables the query's.
;; data
(Inheritance (Concept "battery") (Concept "device"))
(Inheritance (Concept "rock") (Concept "mineral"))
(Evaluation (Predicate "PartOf") (List (Concept "battery") (Concept "car")))
(Evaluation (Predicate "PartOf") (List (Concept "rock") (Concept "wall")))
(Define (DefinedPredicate "device part") (Present (Inheritance (Variable "$x") (Concept "device")) (Evaluation (Predicate "PartOf") (List (Variable "$x") (Variable "$y")))))
;; query
(Get (DefinedPredicate "device part"))
;; expect
(Set (List (Concept "battery") (Concept "car")))
