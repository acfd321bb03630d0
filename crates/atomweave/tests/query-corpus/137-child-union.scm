; Data in the base space and more in a child; the query runs in the child
; and sees both.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
;; child-data
(Inheritance (Concept "Nil") (Concept "human"))
;; query
(Get (Inheritance (Variable "$x") (Concept "human")))
;; expect
(Set (Concept "Ben") (Concept "Linas") (Concept "Nil"))
