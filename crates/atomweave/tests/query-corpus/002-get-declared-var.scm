; GetLink with a single VariableNode as its declaration; (Concept "c") is in another box.
;; data
(Member (Concept "a") (Concept "bag"))
(Member (Concept "b") (Concept "bag"))
(Member (Concept "c") (Concept "box"))
;; query
(Get (Variable "$x") (Member (Variable "$x") (Concept "bag")))
;; expect
(Set (Concept "a") (Concept "b"))
