; A reduction that sets a value is run: the value is set and given.
;; data
(Concept "t" (alist (cons (Predicate "a") (FloatValue 1 2))))
;; query
(Put (Lambda (Variable "$t") (SetValue (Variable "$t") (Predicate "b") (Times (FloatValueOf (Variable "$t") (Predicate "a")) (Number 10)))) (Concept "t"))
;; expect-value
(FloatValue 10 20)
