; SetValue with a schema and arguments: the schema applied to them.
;; data
(Anchor "a" (alist (cons (Predicate "v") (FloatValue 1 2 3))))
(Define (DefinedSchema "double") (Lambda (Variable "$x") (Times (Variable "$x") (Number 2))))
;; query
(SetValue (Anchor "b") (Predicate "w") (DefinedSchema "double") (FloatValueOf (Anchor "a") (Predicate "v")))
;; expect-value
(FloatValue 2 4 6)
