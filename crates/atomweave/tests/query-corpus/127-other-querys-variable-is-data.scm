; A stored query with variable $x is plain data to a query over $y:
; (Variable "$x") is a grounding; only the query's own variables are excluded.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Get (Inheritance (Variable "$x") (Concept "human")))
;; query
(Get (Inheritance (Variable "$y") (Concept "human")))
;; expect
(Set (Concept "Ben") (Variable "$x"))
