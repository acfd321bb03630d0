; Equal between a glob and a ListLink: the glob's value is Ev::Absent(List, run)
; even when that ListLink exists, while (List a b) evaluates to Ev::Atom, so
; they never compare equal (eval.rs value()). Inside a link the run is not
; spliced either: (List (Glob "$g")) is a List holding a List.
;; data
(Evaluation (Predicate "p") (List (Concept "a") (Concept "b")))
(Evaluation (Predicate "p") (List (Concept "c")))
;; query
(Get (VariableList (Glob "$g"))
  (And (Evaluation (Predicate "p") (List (Glob "$g")))
       (Equal (Glob "$g") (List (Concept "a") (Concept "b")))))
;; expect
(Set (List (Concept "a") (Concept "b")))
