; DualLink: the patterns (links holding variables) that the term grounds.
; ($a $a) needs equal members; the robot pattern has another constant.
;; data
(Inheritance (Variable "$x") (Concept "human"))
(Inheritance (Concept "Ben") (Variable "$y"))
(Inheritance (Variable "$x") (Concept "robot"))
(Inheritance (Variable "$a") (Variable "$a"))
(Inheritance (Variable "$a") (Variable "$b"))
(Inheritance (Concept "Linas") (Concept "human"))
;; query
(Dual (Inheritance (Concept "Ben") (Concept "human")))
;; expect
(Set
  (Inheritance (Variable "$x") (Concept "human"))
  (Inheritance (Concept "Ben") (Variable "$y"))
  (Inheritance (Variable "$a") (Variable "$b")))
