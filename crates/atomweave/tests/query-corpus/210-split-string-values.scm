; Split: each string's words, a StringValue each; white space runs collapse.
;; data
(Anchor "a" (alist (cons (Predicate "k") (StringValue "  two  words" "and\tthree more "))))
;; query
(Split (ValueOf (Anchor "a") (Predicate "k")))
;; expect-value
(LinkValue (StringValue "two")(StringValue "words")(StringValue "and")(StringValue "three")(StringValue "more"))
