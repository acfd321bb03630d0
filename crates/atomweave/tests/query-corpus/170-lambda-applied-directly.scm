; A LambdaLink applied in place: the body is built with the argument in it.
;; data
(Concept "a")
;; query
(ExecutionOutput (Lambda (Variable "$x") (List (Variable "$x") (Concept "b"))) (List (Concept "a")))
;; expect
(List (Concept "a") (Concept "b"))
