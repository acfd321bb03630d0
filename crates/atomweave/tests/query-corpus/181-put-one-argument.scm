; PutLink: the body with its free variable replaced by the argument.
;; data
(Concept "a")
;; query
(Put (Inheritance (Variable "$x") (Concept "animal")) (Concept "cat"))
;; expect
(Inheritance (Concept "cat") (Concept "animal"))
