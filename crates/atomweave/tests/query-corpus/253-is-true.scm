; IsTrueLink: is each member's truth value exactly (stv 1 1)?
;; data
(Concept "yes" (stv 1 1))
(Concept "also" (stv 1 1))
;; query
(IsTrue (Concept "yes") (Concept "also"))
;; expect-tv
(stv 1 1)
