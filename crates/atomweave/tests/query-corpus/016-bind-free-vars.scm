; BindLink without a declaration: the body's variables are the free variables.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Bind (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y")))
  (Evaluation (Predicate "liked-by") (List (Variable "$y") (Variable "$x"))))
;; expect
(Set
  (Evaluation (Predicate "liked-by") (List (Concept "pizza") (Concept "Ben")))
  (Evaluation (Predicate "liked-by") (List (Concept "tea") (Concept "Linas"))))
