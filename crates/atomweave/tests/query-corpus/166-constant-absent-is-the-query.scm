; A constant Absent clause always fails: the atom it says must be absent
; exists as part of the query (exists() only refuses links holding variables).
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
;; query
(Get (And (Inheritance (Variable "$x") (Concept "human"))
          (Absent (Inheritance (Concept "Ben") (Concept "robot")))))
;; expect
(Set (Concept "Ben") (Concept "Linas"))
