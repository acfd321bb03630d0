; MeetLink with two variables: a ListLink per tuple, declaration order.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Meet (VariableList (Variable "$x") (Variable "$y"))
  (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y"))))
;; expect-atoms
(List (Concept "Ben") (Concept "pizza"))
(List (Concept "Linas") (Concept "tea"))
