; Variables four levels down, one inside an unordered SetLink.
;; data
(Evaluation (Predicate "says") (List (Concept "Ann")
  (Evaluation (Predicate "likes") (List (Concept "Bob") (Set (Concept "tea") (Concept "cake"))))))
(Evaluation (Predicate "says") (List (Concept "Cid")
  (Evaluation (Predicate "likes") (List (Concept "Bob") (Set (Concept "coffee") (Concept "cake"))))))
(Evaluation (Predicate "says") (List (Concept "Dee")
  (Evaluation (Predicate "likes") (List (Concept "Eve") (Set (Concept "tea") (Concept "jam"))))))
;; query
(Get (VariableList (Variable "$who") (Variable "$what"))
  (Evaluation (Predicate "says") (List (Variable "$who")
    (Evaluation (Predicate "likes") (List (Concept "Bob") (Set (Concept "tea") (Variable "$what")))))))
;; expect
(Set (List (Concept "Ann") (Concept "cake")))
