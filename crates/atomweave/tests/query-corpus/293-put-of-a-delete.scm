; A PutLink whose body is a DeleteLink removes the atoms it names, and
; gives nothing: a query then finds only the member left.
;; data
(Member (Concept "a") (Concept "set"))
(Member (Concept "b") (Concept "set"))
;; query
(SequentialAnd
  (True (Put (Delete (Member (Variable "$x") (Concept "set"))) (Concept "a")))
  (Equal (Get (TypedVariable (Variable "$y") (Type "ConceptNode")) (Member (Variable "$y") (Concept "set")))
         (Set (Concept "b"))))
;; expect-tv
(stv 1 1)
