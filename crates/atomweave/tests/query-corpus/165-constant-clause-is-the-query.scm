; A constant clause is found because the query itself holds it: nothing in
; the data says Ben is a robot, yet Satisfaction is true. (The same makes a
; constant Absent clause always fail.)
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Satisfaction (Inheritance (Concept "Ben") (Concept "robot")))
;; expect-tv
(stv 0 1)
