; A BindLink whose rewrite has the clause's shape: neither the clause nor
; the rewrite template is a grounding.
;; data
;; query
(Bind (VariableList (Variable "$a") (Variable "$b"))
  (Inheritance (Variable "$a") (Variable "$b"))
  (Inheritance (Variable "$b") (Variable "$a")))
;; expect
(Set)
