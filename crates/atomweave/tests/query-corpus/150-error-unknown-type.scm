; A TypeNode naming no type: the loader accepts it, execute refuses it.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Get (TypedVariable (Variable "$x") (Type "FooBarNode"))
  (Inheritance (Variable "$x") (Concept "human")))
;; expect-error
FooBarNode
