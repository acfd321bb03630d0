; A GrantLink is its key's one grant: the first stays, another gives it.
;; data
(Grant (Concept "key") (Concept "first"))
(Grant (Concept "key") (Concept "second"))
;; query
(Get (Grant (Concept "key") (Variable "$v")))
;; expect
(Set (Concept "first"))
