; Arithmetic nested inside a rewrite link is computed in place.
;; data
(Member (Number 1) (Concept "nums"))
(Member (Number 2) (Concept "nums"))
(Member (Number 3) (Concept "nums"))
;; query
(Bind (Variable "$n") (Member (Variable "$n") (Concept "nums"))
  (Evaluation (Predicate "double") (List (Variable "$n") (Times (Variable "$n") (Number 2)))))
;; expect
(Set
  (Evaluation (Predicate "double") (List (Number 1) (Number 2)))
  (Evaluation (Predicate "double") (List (Number 2) (Number 4)))
  (Evaluation (Predicate "double") (List (Number 3) (Number 6))))
