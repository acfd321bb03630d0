; Matching a stored query literally: a quoted GetLink whose inner
; (Variable "$v") is a plain atom.
;; data
(Get (Inheritance (Variable "$v") (Concept "human")))
(Get (Inheritance (Variable "$w") (Concept "robot")))
;; query
(Get (Variable "$c")
  (Quote (Get (Inheritance (Variable "$v") (Unquote (Variable "$c"))))))
;; expect
(Set (Concept "human"))
