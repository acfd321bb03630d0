; One variable twice in an unordered link: only links of two equal members.
;; data
(Similarity (Concept "a") (Concept "a"))
(Similarity (Concept "a") (Concept "b"))
(Similarity (Concept "c") (Concept "c"))
;; query
(Get (Similarity (Variable "$x") (Variable "$x")))
;; expect
(Set (Concept "a") (Concept "c"))
