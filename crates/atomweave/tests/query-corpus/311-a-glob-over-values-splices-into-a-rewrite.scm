; A Filter's Rule whose glob matched a run of atoms inside a LinkValue
; puts them, spliced, into the link its rewrite builds.
;; data
(Anchor "tree" (alist (cons (Predicate "key") (LinkValue (LinkValue (Concept "parse") (Concept "e1") (Concept "e2"))))))
;; query
(Filter (Rule (Glob "$x") (LinkSignature (Type "LinkValue") (Concept "parse") (Glob "$x")) (Ordered (Concept "edges") (Glob "$x")))
  (ValueOf (Anchor "tree") (Predicate "key")))
;; expect-value
(LinkValue (OrderedLink (ConceptNode "edges")(ConceptNode "e1")(ConceptNode "e2")))
