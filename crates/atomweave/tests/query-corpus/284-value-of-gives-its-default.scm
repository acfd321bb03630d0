; ValueOf with a default after the key: the default where there is no value.
;; data
(Concept "a")
;; query
(ValueOf (Concept "a") (Predicate "missing") (Concept "default"))
;; expect
(Concept "default")
