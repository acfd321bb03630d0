; VariableSet declaration (unordered), used through a rewrite.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Bind (VariableSet (Variable "$a") (Variable "$b"))
  (Evaluation (Predicate "likes") (List (Variable "$a") (Variable "$b")))
  (Evaluation (Predicate "liked-by") (List (Variable "$b") (Variable "$a"))))
;; expect
(Set
  (Evaluation (Predicate "liked-by") (List (Concept "pizza") (Concept "Ben")))
  (Evaluation (Predicate "liked-by") (List (Concept "tea") (Concept "Linas"))))
