; A Promise with no type makes a FormulaStream.
;; data
(Concept "x")
;; query
(Promise (Plus (Number 1) (Number 1)))
;; expect-value
(FormulaStream (PlusLink (NumberNode "1")(NumberNode "1")))
