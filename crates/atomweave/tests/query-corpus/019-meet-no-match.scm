; MeetLink with no grounding: an empty LinkValue.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
;; query
(Meet (Inheritance (Variable "$x") (Concept "robot")))
;; expect-atoms
