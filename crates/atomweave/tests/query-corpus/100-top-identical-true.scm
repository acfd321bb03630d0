; A top-level IdenticalLink of one atom twice.
;; data
;; query
(Identical (Concept "a") (Concept "a"))
;; expect-tv
(stv 1 1)
