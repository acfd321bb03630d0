; TypeOf: the type of what each member gives.
;; data
(Concept "x")
;; query
(TypeOf (Concept "a") (Plus (Number 1) (Number 2)) (Time))
;; expect-value
(LinkValue (TypeNode "ConceptNode")(TypeNode "NumberNode")(TypeNode "FloatValue"))
