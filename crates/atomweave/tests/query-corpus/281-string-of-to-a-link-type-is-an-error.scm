; StringOf makes a node or a StringValue, not a link.
;; data
(Concept "x")
;; query
(StringOf (Type "ListLink") (Concept "a"))
;; expect-error
StringOf makes a node or a StringValue
