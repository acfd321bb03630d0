; A DeleteLink built by a rewrite deletes what it names and gives nothing.
;; data
(Evaluation (Predicate "visibility") (List (Concept "item")))
;; query
(Bind (Evaluation (Predicate "visibility") (List (Variable "$x"))) (Delete (Evaluation (Predicate "visibility") (List (Variable "$x")))))
;; expect
(Set)
