; LinkSignature of a link type, executed: that link of its members.
;; data
(Concept "x")
;; query
(LinkSignature (Type "ListLink") (Concept "a") (Plus (Number 1) (Number 1)))
;; expect
(List (Concept "a") (Number 2))
