; A cycle whose closing clause holds a ChoiceLink with a type in it (a
; SignNode): one alternative matches. Searched by backtracking (the join
; leaves choices and types in the pattern to it), with the same answer
; whichever search is asked for.
;; data
(Inheritance (Concept "A") (Concept "B"))
(Inheritance (Concept "B") (Concept "C"))
(Inheritance (Concept "C") (Concept "A"))
(Evaluation (Predicate "p") (List (Concept "C") (Concept "A") (Concept "k")))
;; query
(Get (VariableList (Variable "$x") (Variable "$y") (Variable "$z"))
  (And
    (Inheritance (Variable "$x") (Variable "$y"))
    (Inheritance (Variable "$y") (Variable "$z"))
    (Evaluation (Predicate "p")
      (List (Variable "$z") (Variable "$x") (Choice (Sign "PredicateNode") (Concept "k"))))))
;; expect
(Set (List (Concept "A") (Concept "B") (Concept "C")))
