;; types: legacy spacetime
;; Types upstream has since removed, in an old embodiment-era dump.
(InheritanceLink (PetNode "Fido") (StructureNode "dog-shape"))
(TypedVariableLink (VariableNode "$x") (VariableTypeNode "ConceptNode"))
(LatestLink (AtTimeLink (TimeNode "1234") (ConceptNode "awake")))
