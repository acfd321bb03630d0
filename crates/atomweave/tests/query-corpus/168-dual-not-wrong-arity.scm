; DualLink over a NotLink pattern: the compiler turns (Not $z) into an Absent
; clause whose root is $z alone, and dual() unifies that root with the whole
; term, so (Not $z) is reported as grounded by a two-member NotLink. (Dual
; also never finds EqualLink or OrLink patterns: compiling them as queries
; fails or splits them, and dual() skips them.)
;; data
(Not (Variable "$z"))
;; query
(Dual (Not (Concept "b") (Concept "c")))
;; expect
(Set)
