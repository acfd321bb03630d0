; Three disconnected single-variable components: 2 x 1 x 2 tuples.
;; data
(Member (Concept "a1") (Concept "A"))
(Member (Concept "a2") (Concept "A"))
(Member (Concept "b1") (Concept "B"))
(Member (Concept "c1") (Concept "C"))
(Member (Concept "c2") (Concept "C"))
;; query
(Bind (VariableList (Variable "$a") (Variable "$b") (Variable "$c"))
  (And
    (Member (Variable "$a") (Concept "A"))
    (Member (Variable "$b") (Concept "B"))
    (Member (Variable "$c") (Concept "C")))
  (List (Variable "$c") (Variable "$b") (Variable "$a")))
;; expect
(Set
  (List (Concept "c1") (Concept "b1") (Concept "a1"))
  (List (Concept "c1") (Concept "b1") (Concept "a2"))
  (List (Concept "c2") (Concept "b1") (Concept "a1"))
  (List (Concept "c2") (Concept "b1") (Concept "a2")))
