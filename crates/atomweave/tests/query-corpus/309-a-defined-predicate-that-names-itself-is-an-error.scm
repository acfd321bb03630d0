; A DefinedPredicate whose pattern names itself does not expand forever.
;; data
(Define (DefinedPredicate "loop") (And (Inheritance (Variable "$x") (Concept "c")) (DefinedPredicate "loop")))
;; query
(Get (DefinedPredicate "loop"))
;; expect-error
definitions expanded in one body
