; StringOf needs a node or a StringValue: a link has no string.
;; data
(Concept "x")
;; query
(StringOf (Type "ConceptNode") (List (Concept "a")))
;; expect-error
has no string
