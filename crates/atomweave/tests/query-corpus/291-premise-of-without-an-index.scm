; PremiseOf with no index: the whole premise, over the variables it uses.
;; data
(Concept "x")
;; query
(PremiseOf (Rule (VariableList (Variable "$A") (Variable "$B")) (Inheritance (Variable "$A") (Concept "c")) (Variable "$B")))
;; expect
(Lambda (Variable "$A") (Inheritance (Variable "$A") (Concept "c")))
