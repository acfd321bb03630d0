; StreamValueOf of a QueueValue takes its front.
;; data
(Anchor "a" (alist (cons (Predicate "q") (QueueValue (Concept "first") (Concept "second")))))
;; query
(StreamValueOf (Anchor "a") (Predicate "q"))
;; expect
(Concept "first")
