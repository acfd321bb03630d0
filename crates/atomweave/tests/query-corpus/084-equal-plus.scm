; EqualLink over a PlusLink: successor pairs.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
;; query
(Get (VariableList (Variable "$a") (Variable "$b"))
  (And
    (Member (Variable "$a") (Concept "nums"))
    (Member (Variable "$b") (Concept "nums"))
    (Equal (Plus (Variable "$a") (Number 1)) (Variable "$b"))))
;; expect
(Set (List (Number 1) (Number 2)) (List (Number 2) (Number 3)))
