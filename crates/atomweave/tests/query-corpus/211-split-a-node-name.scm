; Split of a node: nodes of its type, here in a ListLink.
;; data
(Concept "x")
;; query
(Split (Type "ListLink") (Concept "the cat  sat"))
;; expect
(List (Concept "the") (Concept "cat") (Concept "sat"))
