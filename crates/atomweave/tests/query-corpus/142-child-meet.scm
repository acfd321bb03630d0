; A MeetLink in a child space, one base link hidden there.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
;; child-data
(Inheritance (Concept "Nil") (Concept "human"))
;; child-extract
(Inheritance (Concept "Linas") (Concept "human"))
;; query
(Meet (Inheritance (Variable "$x") (Concept "human")))
;; expect-atoms
(Concept "Ben")
(Concept "Nil")
