; A typed variable takes only atoms of its type.
;; data
(Concept "x")
;; query
(Filter (Lambda (TypedVariable (Variable "$v") (Type "ConceptNode")) (Inheritance (Variable "$v") (Concept "animal")))
        (Set (Inheritance (Concept "cat") (Concept "animal")) (Inheritance (Predicate "walks") (Concept "animal"))))
;; expect
(Set (Concept "cat"))
