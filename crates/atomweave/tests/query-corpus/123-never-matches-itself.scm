; Nothing but the query in the space: its own clause is not a grounding.
;; data
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (Inheritance (Variable "$x") (Variable "$y")))
;; expect
(Set)
