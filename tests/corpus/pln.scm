;; types: pln
;; PLN inference results.
(IntensionalInheritanceLink (stv 0.6 0.3)
  (ConceptNode "cat") (ConceptNode "pet"))
(IntensionalSimilarityLink (stv 0.4 0.2)
  (ConceptNode "cat") (ConceptNode "dog"))
(PredictiveImplicationLink (stv 0.8 0.5)
  (PredicateNode "hungry") (PredicateNode "eats"))
