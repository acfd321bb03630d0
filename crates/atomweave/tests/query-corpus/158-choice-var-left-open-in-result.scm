; A ChoiceLink in a term whose members hold different variables: grounding
; through (Concept "human") leaves $y open, and tuple() (mod.rs) then fails
; with "an ungrounded variable in a result" while building the result, after
; the ListLinks of the groundings sorted before it were added to the space.
; Either refuse such a query at compile time (adding nothing) or define the
; result; as it stands the failure is at run time and leaves atoms behind.
;; data
(Inheritance (Concept "Ben") (Concept "human"))
(Inheritance (Concept "Rex") (Concept "dog"))
(Inheritance (Concept "Amy") (Concept "cat"))
(Inheritance (Concept "Bo") (Concept "cat"))
(Inheritance (Concept "Cy") (Concept "cat"))
(Inheritance (Concept "Di") (Concept "cat"))
(Inheritance (Concept "Ed") (Concept "cat"))
(Inheritance (Concept "Flo") (Concept "cat"))
;; query
(Get (VariableList (Variable "$x") (Variable "$y"))
  (Inheritance (Variable "$x") (Choice (Variable "$y") (Concept "human"))))
;; expect-error
same variables
