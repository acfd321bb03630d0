;; types: nlp
;; A parse, as RelEx and the Link Grammar parser wrote them.
(ParseLink (stv 1 1)
  (ParseNode "sentence@1_parse_0")
  (SentenceNode "sentence@1"))
(WordInstanceLink
  (WordInstanceNode "cat@11")
  (ParseNode "sentence@1_parse_0"))
(ReferenceLink (WordInstanceNode "cat@11") (WordNode "cat"))
(LemmaLink (WordInstanceNode "cat@11") (WordNode "cat"))
(PartOfSpeechLink (WordInstanceNode "cat@11") (DefinedLinguisticConceptNode "noun"))
(EvaluationLink
  (LinkGrammarRelationshipNode "Ss")
  (ListLink (WordInstanceNode "cat@11") (WordInstanceNode "sat@12")))
(SentenceLink (SentenceNode "sentence@1") (DocumentNode "doc@1"))
