; SetValue of data (not code): the atom itself is set, and given.
;; data
(Concept "x")
;; query
(SetValue (Concept "holder") (Predicate "k") (Concept "the value"))
;; expect
(Concept "the value")
