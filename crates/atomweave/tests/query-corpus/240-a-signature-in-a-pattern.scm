; A Signature in a pattern: its shape, with any atom of each type in it.
;; data
(Evaluation (Predicate "foo") (List (Number 5) (Number 6)))
(Evaluation (Predicate "bar") (List (Number 5) (Concept "six")))
;; query
(Get (TypedVariable (Variable "$p") (Type "PredicateNode")) (Evaluation (Variable "$p") (Signature (List (Type "NumberNode") (Type "NumberNode")))))
;; expect
(Set (Predicate "foo"))
