; A LinkSignature matches a LinkValue member by member; as a rewrite, it
; builds one.
;; data
(Concept "src" (alist (cons (Predicate "k") (LinkValue (LinkValue (Concept "alice") (Concept "hello")) (LinkValue (Concept "bob"))))))
;; query
(Filter (Rule (VariableList (Variable "$who") (Variable "$what"))
              (LinkSignature (Type "LinkValue") (Variable "$who") (Variable "$what"))
              (LinkSignature (Type "LinkValue") (Variable "$what") (Item "from") (Variable "$who")))
        (ValueOf (Concept "src") (Predicate "k")))
;; expect-value
(LinkValue (LinkValue (ConceptNode "hello")(ItemNode "from")(ConceptNode "alice")))
