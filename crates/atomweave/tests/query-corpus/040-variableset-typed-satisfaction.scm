; VariableSet with a typed member: no liked thing is a NumberNode.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Satisfaction (VariableSet (TypedVariable (Variable "$a") (Type "NumberNode")) (Variable "$b"))
  (Evaluation (Predicate "likes") (List (Variable "$b") (Variable "$a"))))
;; expect-tv
(stv 0 1)
