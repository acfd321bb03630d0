; Two SignNodes of one type are two places: they need not match one atom.
;; data
(Evaluation (Predicate "foo") (List (Number 5) (Number 6)))
(Evaluation (Predicate "bar") (List (Number 5) (Concept "six")))
;; query
(Meet (TypedVariable (Variable "$p") (Type "PredicateNode")) (Evaluation (Variable "$p") (List (Sign "NumberNode") (Sign "NumberNode"))))
;; expect-atoms
(Predicate "foo")
