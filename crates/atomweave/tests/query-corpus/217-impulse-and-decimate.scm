; Decimate keeps the elements where the mask is true; Impulse makes it numbers.
;; data
(Anchor "a" (alist (cons (Predicate "m") (BoolValue #f #t #t)) (cons (Predicate "v") (FloatValue 10 20 30))))
;; query
(Times (Decimate (ValueOf (Anchor "a") (Predicate "m")) (ValueOf (Anchor "a") (Predicate "v")))
       (Decimate (ValueOf (Anchor "a") (Predicate "m")) (Impulse (ValueOf (Anchor "a") (Predicate "m")))))
;; expect-value
(FloatValue 20 30)
