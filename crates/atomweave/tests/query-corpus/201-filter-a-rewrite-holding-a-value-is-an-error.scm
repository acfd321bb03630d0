; A value that is no atom cannot go into a link of the space: an error
; naming the link, not a link with something else in its place.
;; data
(Concept "src" (alist (cons (Predicate "k") (LinkValue (FloatValue 1)))))
;; query
(Filter (Rule (Variable "$f") (Variable "$f") (List (Variable "$f"))) (ValueOf (Concept "src") (Predicate "k")))
;; expect-error
a FloatValue is not an atom
