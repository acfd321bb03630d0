; StringOf to a StringValue.
;; data
(Concept "x")
;; query
(StringOf (Type "StringValue") (Concept "a name"))
;; expect-value
(StringValue "a name")
