; SetValue with a schema and arguments: a stream over the schema applied
; to them (a FormulaStream, since the arguments compute numbers), set and
; given; it prints as what it is made of.
;; data
(Anchor "a" (alist (cons (Predicate "v") (FloatValue 1 2 3))))
(Define (DefinedSchema "double") (Lambda (Variable "$x") (Times (Variable "$x") (Number 2))))
;; query
(SetValue (Anchor "b") (Predicate "w") (DefinedSchema "double") (FloatValueOf (Anchor "a") (Predicate "v")))
;; expect-value
(FormulaStream (ExecutionOutputLink (DefinedSchemaNode "double")(FloatValueOfLink (AnchorNode "a")(PredicateNode "v"))))
