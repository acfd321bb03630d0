; ConclusionOf: the rule's conclusion as a Lambda over what it uses.
;; data
(Concept "x")
;; query
(ConclusionOf (Rule (VariableList (Variable "$A") (Variable "$B")) (Variable "$B") (Implication (Variable "$A") (Variable "$B"))))
;; expect
(Lambda (VariableList (Variable "$A") (Variable "$B")) (Implication (Variable "$A") (Variable "$B")))
