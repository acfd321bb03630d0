; SatisfactionLink over an empty space is false, although its clause atom is
; in the space.
;; data
;; query
(Satisfaction (Evaluation (Predicate "p") (List (Variable "$x") (Variable "$y"))))
;; expect-tv
(stv 0 1)
