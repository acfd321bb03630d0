; IncomingOf without a type: every link holding the atom (this one too).
;; data
(List (Concept "x") (Concept "y"))
;; query
(CollectionOf (Type "SetLink") (IncomingOf (Concept "y")))
;; expect
(Set (List (Concept "x") (Concept "y")) (IncomingOf (Concept "y")))
