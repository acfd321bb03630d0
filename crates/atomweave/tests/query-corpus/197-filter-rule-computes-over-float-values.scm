; A variable may take a value that is no atom; a rewrite computes with it.
;; data
(Concept "src" (alist (cons (Predicate "k") (LinkValue (FloatValue 1 2) (StringValue "s") (FloatValue 10)))))
;; query
(Filter (Rule (TypedVariable (Variable "$f") (Type "FloatValue")) (Variable "$f") (Plus (Variable "$f") (Number 1)))
        (ValueOf (Concept "src") (Predicate "k")))
;; expect-value
(LinkValue (FloatValue 2 3)(FloatValue 11))
