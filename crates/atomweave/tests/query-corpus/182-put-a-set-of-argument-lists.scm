; PutLink over a SetLink of ListLinks: one result per tuple, in a SetLink;
; the declared variables take the list's members in order.
;; data
(Concept "a")
;; query
(Put (VariableList (Variable "$x") (Variable "$y")) (List (Variable "$y") (Variable "$x"))
     (Set (List (Concept "1") (Concept "2")) (List (Concept "3") (Concept "4"))))
;; expect
(Set (List (Concept "2") (Concept "1")) (List (Concept "4") (Concept "3")))
