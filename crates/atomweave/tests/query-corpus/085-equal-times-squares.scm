; EqualLink over a TimesLink: b = a * a.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
(Member (Number 4) (Concept "nums"))
;; query
(Get (VariableList (Variable "$a") (Variable "$b"))
  (And
    (Member (Variable "$a") (Concept "nums"))
    (Member (Variable "$b") (Concept "nums"))
    (Equal (Times (Variable "$a") (Variable "$a")) (Variable "$b"))))
;; expect
(Set (List (Number 1) (Number 1)) (List (Number 2) (Number 4)))
