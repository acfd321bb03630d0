; MeetLink: the groundings as a LinkValue.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Meet (Inheritance (Variable "$x") (Concept "human")))
;; expect-atoms
(Concept "Ben")
(Concept "Linas")
