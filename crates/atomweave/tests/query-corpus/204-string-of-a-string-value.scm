; StringOf of a StringValue to a node: its first string.
;; data
(Anchor "a" (alist (cons (Predicate "k") (StringValue "first" "second"))))
;; query
(StringOf (Type "ItemNode") (ValueOf (Anchor "a") (Predicate "k")))
;; expect
(Item "first")
