; FalseLink never holds; SequentialOr tries its members until one holds.
;; data
(Concept "x")
;; query
(SequentialOr (False) (False (Concept "x")) (True))
;; expect-tv
(stv 1 1)
