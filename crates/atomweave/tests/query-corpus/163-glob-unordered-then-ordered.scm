; A glob grounded in an unordered link is stored as its run sorted by handle
; (bind_rest, Cow::Owned(left)); a later ordered clause then compares it with
; out.starts_with(r), in that order only. So the result depends on which
; clause the planner picks first: here (Concept "m") is busy, the Set clause
; goes first, and (List m x1 x2) is lost or found depending on handle order.
; With (Concept "k") busy instead, both Lists come back.
;; data
(Set (Concept "k") (Concept "x1") (Concept "x2"))
(List (Concept "m") (Concept "x2") (Concept "x1"))
(List (Concept "m") (Concept "x1") (Concept "x2"))
(Member (Concept "m") (Concept "z0"))
(Member (Concept "m") (Concept "z1"))
(Member (Concept "m") (Concept "z2"))
(Member (Concept "m") (Concept "z3"))
(Member (Concept "m") (Concept "z4"))
(Member (Concept "m") (Concept "z5"))
(Member (Concept "m") (Concept "z6"))
(Member (Concept "m") (Concept "z7"))
;; query
(Get (VariableList (Glob "$g"))
  (And (Set (Concept "k") (Glob "$g")) (List (Concept "m") (Glob "$g"))))
;; expect
(Set (List (Concept "x2") (Concept "x1")) (List (Concept "x1") (Concept "x2")))
