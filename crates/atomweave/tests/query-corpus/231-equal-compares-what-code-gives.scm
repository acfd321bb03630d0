; EqualLink compares what its members compute.
;; data
(Define (DefinedSchema "pick") (Concept "A"))
;; query
(Equal (DefinedSchema "pick") (Concept "A"))
;; expect-tv
(stv 1 1)
