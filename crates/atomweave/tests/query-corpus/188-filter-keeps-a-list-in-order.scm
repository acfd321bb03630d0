; Over a ListLink the results keep the list's order, in a ListLink.
;; data
(Concept "x")
;; query
(Filter (Lambda (Variable "$n") (Member (Variable "$n") (Concept "odd")))
        (List (Member (Number 9) (Concept "odd")) (Member (Number 2) (Concept "even")) (Member (Number 1) (Concept "odd"))))
;; expect
(List (Number 9) (Number 1))
