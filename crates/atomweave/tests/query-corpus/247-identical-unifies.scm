; A body of IdenticalLinks binds by unification: nothing need be in the space.
;; data
(Concept "x")
;; query
(Get (VariableList (Variable "$X") (Variable "$Y"))
     (Identical (Inheritance (Variable "$X") (Concept "B")) (Inheritance (Concept "A") (Variable "$Y"))))
;; expect
(Set (List (Concept "A") (Concept "B")))
