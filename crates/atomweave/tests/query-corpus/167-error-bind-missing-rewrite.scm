; A BindLink whose rewrite is missing: (Bind DECL BODY). execute() only takes
; the first member as the declaration when a rewrite follows, so this runs as
; body (Variable "$x") with rewrite (Inheritance $x human): every atom of the
; space grounds $x and an InheritanceLink is added for each. Upstream (and
; the spec's "VARDECL? BODY REWRITE") read a leading VariableNode /
; VariableList / TypedVariableLink as the declaration; this must be refused.
; (With (VariableList (Variable "$x")) first it silently gives (Set).)
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Concept "car")
;; query
(Bind (Variable "$x") (Inheritance (Variable "$x") (Concept "human")))
;; expect-error
rewrite
