; nodes, links, truth values and values
(ConceptNode "cat" (stv 0.9 0.8))
(InheritanceLink (stv 0.5 0.25)
  (Concept "cat")
  (Concept "animal"))
(ListLink (Number "1.5") (Number "-2e10") (Predicate "p"))
(SetLink (Concept "b") (Concept "a"))
(EvaluationLink (PredicateNode "likes") (ListLink (ConceptNode "Bob") (ConceptNode "sushi")))
(cog-set-value! (Concept "cat") (Predicate "weight") (FloatValue 1 2.5 -3e-4))
(cog-set-value! (Concept "cat") (Predicate "names") (StringValue "tom" "a \"quoted\" name\n"))
(cog-set-value! (Concept "cat") (Predicate "flags") (BoolValue #t #f))
(cog-set-value! (Concept "cat") (Predicate "nest") (LinkValue (FloatValue 1) (Concept "dog") (LinkValue (StringValue "x"))))
(cog-set-tv! (Concept "dog") (ctv 0.3 0.4 12))
(Concept "ünïcödé ☃" (av 1 2 0))
#| block
comment |#
#;(Concept "skipped")
(MemberLink (Concept "x") (Concept "cat"))
