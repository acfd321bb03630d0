; BoolOr of a BoolValue and the BoolNot of another, pointwise.
;; data
(Anchor "a" (alist (cons (Predicate "x") (BoolValue #t #f #f)) (cons (Predicate "y") (BoolValue #t #t #f))))
;; query
(BoolOr (BoolAnd (ValueOf (Anchor "a") (Predicate "x")) (ValueOf (Anchor "a") (Predicate "y"))) (BoolNot (ValueOf (Anchor "a") (Predicate "y"))))
;; expect-value
(BoolValue #t #f #t)
