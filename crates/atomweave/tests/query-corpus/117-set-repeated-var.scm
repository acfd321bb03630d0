; A variable twice in a SetLink with a constant: the two non-constant
; members must be equal.
;; data
(Set (Concept "a") (Concept "a") (Concept "b"))
(Set (Concept "a") (Concept "b") (Concept "b"))
(Set (Concept "c") (Concept "c") (Concept "b"))
(Set (Concept "a") (Concept "c") (Concept "b"))
;; query
(Get (Set (Variable "$x") (Variable "$x") (Concept "b")))
;; expect
(Set (Concept "a") (Concept "c"))
