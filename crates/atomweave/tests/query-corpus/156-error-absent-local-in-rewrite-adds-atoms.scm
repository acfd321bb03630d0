; $y occurs only in the AbsentLink (local to it) but the rewrite uses it: a
; bad query, which must add nothing. The rewrite is built link by link per
; grounding, so (Inheritance Linas new) is added before $y is found ungrounded.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Linas") (Concept "human"))
(Evaluation (Predicate "owns") (List (Concept "Ben") (Concept "car")))
;; query
(Bind (VariableList (Variable "$x") (Variable "$y"))
  (And (Inheritance (Variable "$x") (Concept "human"))
    (Absent (Evaluation (Predicate "owns") (List (Variable "$x") (Variable "$y")))))
  (List (Inheritance (Variable "$x") (Concept "new")) (Variable "$y")))
;; expect-error
$y
