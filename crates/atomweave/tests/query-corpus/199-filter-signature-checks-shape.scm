; A Signature keeps the items of its shape, whole.
;; data
(Concept "x")
;; query
(Filter (Signature (Inheritance (Type "ConceptNode") (Concept "animal")))
        (Set (Inheritance (Concept "cat") (Concept "animal")) (Inheritance (Concept "oak") (Concept "tree")) (Inheritance (Predicate "p") (Concept "animal"))))
;; expect
(Set (Inheritance (Concept "cat") (Concept "animal")))
