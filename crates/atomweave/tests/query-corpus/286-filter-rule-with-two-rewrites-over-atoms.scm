; A Rule with two rewrites gives a ListLink of both per match (atoms), in
; a SetLink over a SetLink.
;; data
(Concept "x")
;; query
(Filter (Rule (Variable "$x") (Member (Variable "$x") (Concept "set"))
              (Inheritance (Variable "$x") (Concept "thing")) (Concept "seen"))
        (Set (Member (Concept "a") (Concept "set"))))
;; expect
(Set (List (Inheritance (Concept "a") (Concept "thing")) (Concept "seen")))
