; A 4-cycle over InheritanceLinks, one variable typed, one clause holding a
; constant, an AbsentLink and an evaluated condition on the cycle's
; variables: each part holds in the join as in the backtracking search.
;; data
(Inheritance (Concept "w") (Concept "x"))
(Inheritance (Concept "x") (Concept "y"))
(Inheritance (Concept "y") (Concept "z"))
(Inheritance (Concept "z") (Concept "w"))
(Inheritance (Concept "x") (Predicate "p"))
(Inheritance (Predicate "p") (Concept "z"))
(Inheritance (Concept "x") (Concept "q"))
(Inheritance (Concept "q") (Concept "z"))
(Member (Concept "w") (Concept "start"))
(Member (Concept "y") (Concept "start"))
(Evaluation (Predicate "blocked") (List (Concept "q")))
;; query
(Get
  (VariableList (Variable "$a") (Variable "$b")
    (TypedVariable (Variable "$c") (Type "ConceptNode")) (Variable "$d"))
  (And
    (Member (Variable "$a") (Concept "start"))
    (Inheritance (Variable "$a") (Variable "$b"))
    (Inheritance (Variable "$b") (Variable "$c"))
    (Inheritance (Variable "$c") (Variable "$d"))
    (Inheritance (Variable "$d") (Variable "$a"))
    (Absent (Evaluation (Predicate "blocked") (List (Variable "$c"))))
    (Not (Equal (Variable "$a") (Variable "$c")))))
;; expect
(Set
  (List (Concept "w") (Concept "x") (Concept "y") (Concept "z"))
  (List (Concept "y") (Concept "z") (Concept "w") (Concept "x")))
