; Decimate a StringValue by a BoolValue mask.
;; data
(Concept "a" (alist (cons (Predicate "m") (BoolValue #t #f #t)) (cons (Predicate "s") (StringValue "a" "b" "c"))))
;; query
(Decimate (ValueOf (Concept "a") (Predicate "m")) (ValueOf (Concept "a") (Predicate "s")))
;; expect-value
(StringValue "a" "c")
