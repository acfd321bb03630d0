; VariableSet holding one typed variable, in a GetLink.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Number 7) (Concept "bag"))
;; query
(Get (VariableSet (TypedVariable (Variable "$x") (Type "NumberNode")))
  (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (Number 7))
