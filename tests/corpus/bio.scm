;; types: bio
;; Gene and pathway facts, as bio-data dumps hold them.
(MemberLink (GeneNode "IGF1") (ConceptNode "GO:0008283"))
(MemberLink (MoleculeNode "ChEBI:15377") (ConceptNode "R-HSA-1430728"))
(EvaluationLink (PredicateNode "interacts_with")
  (SetLink (GeneNode "IGF1") (GeneNode "IGF1R")))
(EvaluationLink (PredicateNode "has_name")
  (ListLink (GeneNode "IGF1") (ConceptNode "insulin like growth factor 1")))
