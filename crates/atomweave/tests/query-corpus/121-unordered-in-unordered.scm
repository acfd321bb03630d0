; A SimilarityLink inside a SetLink: permutations at both levels.
;; data
(Set (Concept "z") (Similarity (Concept "b") (Concept "a")))
(Set (Similarity (Concept "a") (Concept "c")) (Concept "y"))
;; query
(Get (Set (Similarity (Concept "a") (Variable "$x")) (Concept "z")))
;; expect
(Set (Concept "b"))
