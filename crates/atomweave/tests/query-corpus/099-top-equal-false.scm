; A top-level EqualLink of distinct concepts.
;; data
;; query
(Equal (Concept "a") (Concept "b"))
;; expect-tv
(stv 0 1)
