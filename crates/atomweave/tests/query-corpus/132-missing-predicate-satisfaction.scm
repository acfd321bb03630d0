; SatisfactionLink whose predicate occurs nowhere else.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Satisfaction (Evaluation (Predicate "adores") (List (Variable "$x") (Variable "$y"))))
;; expect-tv
(stv 0 1)
