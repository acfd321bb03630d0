; IsClosedLink: do its members hold no free variable?
;; data
(Concept "x")
;; query
(IsClosed (Concept "a") (Inheritance (Concept "b") (Variable "$v")))
;; expect-tv
(stv 0 1)
