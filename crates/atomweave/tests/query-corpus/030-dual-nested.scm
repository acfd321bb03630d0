; DualLink with a nested term: the variables sit two levels down.
;; data
(Evaluation (Predicate "likes") (List (Variable "$x") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Ben") (Variable "$y")))
(Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$x")))
(Evaluation (Predicate "hates") (List (Variable "$x") (Concept "pizza")))
(Evaluation (Predicate "likes") (Variable "$whole"))
;; query
(Dual (Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza"))))
;; expect
(Set
  (Evaluation (Predicate "likes") (List (Variable "$x") (Concept "pizza")))
  (Evaluation (Predicate "likes") (List (Concept "Ben") (Variable "$y")))
  (Evaluation (Predicate "likes") (Variable "$whole")))
