; A base link extracted (hidden) in the child is not matched there.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
;; child-data
(Inheritance (Concept "Nil") (Concept "human"))
;; child-extract
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Get (Inheritance (Variable "$x") (Concept "human")))
;; expect
(Set (Concept "Linas") (Concept "Nil"))
