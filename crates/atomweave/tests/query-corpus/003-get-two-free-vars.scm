; Two undeclared variables in one ordered clause: tuples in order of first
; appearance ($x then $y); the "hates" link has another predicate.
;; data
(Evaluation (Predicate "likes") (List (Concept "Ben") (Concept "pizza")))
(Evaluation (Predicate "likes") (List (Concept "Linas") (Concept "tea")))
(Evaluation (Predicate "hates") (List (Concept "Ben") (Concept "tea")))
;; query
(Get (Evaluation (Predicate "likes") (List (Variable "$x") (Variable "$y"))))
;; expect
(Set (List (Concept "Ben") (Concept "pizza")) (List (Concept "Linas") (Concept "tea")))
