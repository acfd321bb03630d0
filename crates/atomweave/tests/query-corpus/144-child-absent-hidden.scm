; AbsentLink in a child: Sophia's robot link is hidden there, so she counts
; as not a robot.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Sophia") (Concept "human"))
(Inheritance (Concept "Sophia") (Concept "robot"))
;; child-data
(Inheritance (Concept "Ben") (Concept "robot"))
;; child-extract
(Inheritance (Concept "Sophia") (Concept "robot"))
;; query
(Get (And
  (Inheritance (Variable "$x") (Concept "human"))
  (Absent (Inheritance (Variable "$x") (Concept "robot")))))
;; expect
(Set (Concept "Sophia"))
