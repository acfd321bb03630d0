; A Query's rewrite that is a PutLink of a LambdaLink: reduced, then the
; function it gives runs.
;; data
(Evaluation (Predicate "p") (Concept "a") (ctv 1 0 3))
;; query
(Query (TypedVariable (Variable "$x") (Type "ConceptNode"))
       (Present (Evaluation (Predicate "p") (Variable "$x")))
       (Put (Lambda (Variable "$y") (Times (CountOf (Evaluation (Predicate "p") (Variable "$y"))) (Number 2))) (Variable "$x")))
;; expect-value
(QueueValue (FloatValue 6))
