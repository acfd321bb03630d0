; A Promise makes a stream; a FutureStream runs its code at each reading.
;; data
(Concept "x")
;; query
(Promise (Type "FutureStream") (Plus (Number 1) (Number 2)))
;; expect-value
(FutureStream (PlusLink (NumberNode "1")(NumberNode "2")))
