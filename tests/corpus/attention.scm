;; Attention values, as a SUMO export carries them on every atom.
(ConceptNode "Entity" (av 0 0 0) (stv 1 0.9))
(InheritanceLink (av 10 1 0)
  (ConceptNode "Physical")
  (ConceptNode "Entity"))
(ConceptNode "Abstract" (av 5 2 1))
