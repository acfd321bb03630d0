; An unknown type inside a TypeChoice.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
;; query
(Get (TypedVariable (Variable "$x") (TypeChoice (Type "ConceptNode") (Type "NoSuchLink")))
  (Inheritance (Variable "$x") (Concept "human")))
;; expect-error
NoSuchLink
