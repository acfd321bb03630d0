; The stored clause (Inheritance $x human) is the query's own clause when the
; query's variable is $x too: it is not a grounding.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Get (Inheritance (Variable "$x") (Concept "human")))
;; query
(Get (Variable "$x") (Inheritance (Variable "$x") (Concept "human")))
;; expect
(Set (Concept "Ben"))
