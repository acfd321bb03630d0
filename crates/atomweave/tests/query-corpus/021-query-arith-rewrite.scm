; QueryLink with an arithmetic rewrite: squares.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
;; query
(Query (Variable "$n") (Member (Variable "$n") (Concept "nums"))
  (Times (Variable "$n") (Variable "$n")))
;; expect-atoms
(Number 1)
(Number 4)
(Number 9)
