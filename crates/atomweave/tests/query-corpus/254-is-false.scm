; IsFalseLink: is each member's truth value exactly (stv 0 1)?
;; data
(Concept "no" (stv 0 1))
(Concept "unsure" (stv 0 0.5))
;; query
(IsFalse (Concept "no") (Concept "unsure"))
;; expect-tv
(stv 0 1)
