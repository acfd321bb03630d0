; SimilarityLink is unordered: the constant may sit on either side.
;; data
(Similarity (Concept "a") (Concept "b"))
(Similarity (Concept "c") (Concept "a"))
(Similarity (Concept "d") (Concept "e"))
;; query
(Get (Similarity (Concept "a") (Variable "$x")))
;; expect
(Set (Concept "b") (Concept "c"))
