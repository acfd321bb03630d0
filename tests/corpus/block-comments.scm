#!
A script header, as Guile scripts begin.
(ConceptNode "not an atom: inside the header")
!#
(ConceptNode "first")
#| a block comment
   (ConceptNode "not an atom either") |#
(ListLink #;(ConceptNode "skipped datum") (ConceptNode "second"))
; a line comment (ConceptNode "no")
(ConceptNode "third") #! an inline block !# (ConceptNode "fourth")
