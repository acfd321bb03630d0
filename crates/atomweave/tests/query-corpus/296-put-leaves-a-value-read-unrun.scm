; A reduction that reads a value (ValueOf and its kin) is given as code,
; not run, as upstream's PutLink does.
;; data
(Concept "x" (alist (cons (Predicate "k") (FloatValue 1 2))))
;; query
(Put (Lambda (Variable "$a") (ValueOf (Variable "$a") (Predicate "k"))) (Concept "x"))
;; expect
(ValueOf (Concept "x") (Predicate "k"))
