; The variables of a GetLink inside the body are the GetLink's, not the
; query's: this satisfaction has none, and its EqualLink compares two
; equal atoms.
;; data
(List (Anchor "state") (Concept "empty"))
;; query
(Satisfaction (Equal (Get (List (Anchor "state") (Variable "$y"))) (Get (List (Anchor "state") (Variable "$y")))))
;; expect-tv
(stv 1 1)
