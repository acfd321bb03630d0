; A top-level NotLink of an EqualLink of distinct concepts.
;; data
;; query
(Not (Equal (Concept "a") (Concept "b")))
;; expect-tv
(stv 1 1)
