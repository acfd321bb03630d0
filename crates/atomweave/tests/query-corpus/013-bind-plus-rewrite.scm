; Arithmetic rewrite: (Plus (Number 2) $n) computes a NumberNode per grounding.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
;; query
(Bind (Variable "$n") (Member (Variable "$n") (Concept "nums"))
  (Plus (Number 2) (Variable "$n")))
;; expect
(Set (Number 3) (Number 4) (Number 5))
