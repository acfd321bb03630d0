; A base node extracted recursively in the child hides it and its links.
;; data
(Member (Concept "Ben") (Concept "team"))
(Member (Concept "Linas") (Concept "team"))
(Inheritance (Concept "Ben") (Concept "human"))
;; child-data
(Member (Concept "Nil") (Concept "team"))
;; child-extract
(Concept "Ben")
;; query
(Get (Member (Variable "$x") (Concept "team")))
;; expect
(Set (Concept "Linas") (Concept "Nil"))
