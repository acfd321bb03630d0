;; query-bench --suite genomics: the queries of upstream's genomics
;; benchmark (opencog/benchmark, query-loop/bio-loop.scm), as its loop
;; runs them: one Get per gene or pathway through cog-execute!, each
;; result's members counted with cog-inc-count!, the result extracted.
;; The data are `generate --shape genomics`'s files, in the benchmark's
;; abbreviations, loaded as its load-data.scm loads them.

(use-modules (srfi srfi-1) (opencog) (opencog exec) (opencog bioscience))

(define e Evaluation)
(define l List)
(define g Gene)
(define m Molecule)
(define c Concept)
(define s Member)
(define i (Predicate "interacts_with"))
(define x (Predicate "expresses"))
(define b (Predicate "has_biogridID"))
(define d (Predicate "has_pubmed_ID"))
(define z (Predicate "has_entrez_id"))

(define (genomics-load dir)
  (for-each (lambda (f) (primitive-load (string-append dir "/" f)))
    '("gene-list.scm" "biogrid-full.scm" "entrez.scm" "uniprot.scm"
      "reactome-chebi.scm" "reactome-ncbi.scm" "reactome-uniprot.scm")))

;; Two genes that interact with `gene` and with each other.
(define (triangle gene)
  (Get
    (VariableList
      (TypedVariable (Variable "$a") (Type 'GeneNode))
      (TypedVariable (Variable "$b") (Type 'GeneNode)))
    (And
      (e i (l gene (Variable "$a")))
      (e i (l (Variable "$a") (Variable "$b")))
      (e i (l gene (Variable "$b"))))))

;; Two proteins of `pathway`, expressed by two genes that interact.
(define (pentagon pathway)
  (Get
    (VariableList
      (TypedVariable (Variable "$g1") (Type 'GeneNode))
      (TypedVariable (Variable "$g2") (Type 'GeneNode))
      (TypedVariable (Variable "$p1") (Type 'MoleculeNode))
      (TypedVariable (Variable "$p2") (Type 'MoleculeNode)))
    (And
      (s (Variable "$p1") pathway)
      (s (Variable "$p2") pathway)
      (e x (l (Variable "$g1") (Variable "$p1")))
      (e x (l (Variable "$g2") (Variable "$p2")))
      (e i (l (Variable "$g1") (Variable "$g2"))))))

;; The number of results of `query`, each of whose members is counted.
(define (count-results query)
  (let* ((result (cog-execute! query))
         (n (cog-arity result)))
    (for-each
      (lambda (row) (for-each (lambda (a) (cog-inc-count! a 1)) (cog-outgoing-set row)))
      (cog-outgoing-set result))
    (cog-extract! result)
    n))

(define (genomics-triangles)
  (map (lambda (name) (count-results (triangle (Gene name)))) gene-list))

(define (genomics-pentagons pathway-names)
  (map (lambda (name) (count-results (pentagon (Concept name)))) pathway-names))

;; The pathways the listed genes are members of, by name, sorted.
(define (genomics-gene-pathways)
  (sort
    (delete-duplicates
      (append-map
        (lambda (name)
          (let* ((found (cog-execute! (Get (TypedVariable (Variable "$p") (Type 'ConceptNode))
                                           (s (Gene name) (Variable "$p")))))
                 (names (map cog-name (cog-outgoing-set found))))
            (cog-extract! found)
            names))
        gene-list))
    string<?))
