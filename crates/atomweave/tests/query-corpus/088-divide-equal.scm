; EqualLink over a DivideLink: a / 2 = 1.5.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
(Member (Number 4) (Concept "nums"))
;; query
(Get (And
  (Member (Variable "$a") (Concept "nums"))
  (Equal (Divide (Variable "$a") (Number 2)) (Number 1.5))))
;; expect
(Set (Number 3))
