; A link holding one of the query's variables deep inside is not a grounding:
; the data link (List (Concept "k") (List (Variable "$x"))) holds $x.
;; data
(Member (List (Concept "k") (Concept "v")) (Concept "bag"))
(Member (List (Concept "k") (List (Variable "$x"))) (Concept "bag"))
;; query
(Get (Variable "$x") (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (List (Concept "k") (Concept "v")))
