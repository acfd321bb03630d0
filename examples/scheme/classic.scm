;;; The classic tour, in upstream OpenCog's Scheme: atoms with truth values,
;;; incoming sets, values, a GetLink and a BindLink, and a round trip
;;; through the embedded store. Written as an upstream script is; it runs
;;; under atomweave unchanged.
;;;
;;;   make guile-env   # prints the two variables that find the extension
;;;   guile examples/scheme/classic.scm [STORE-DIRECTORY]

(use-modules (opencog) (opencog exec) (opencog persist) (opencog persist-rocks))

;; Atoms, with truth values.
(define tom (ConceptNode "Tom" (stv 0.9 0.8)))
(define cat (ConceptNode "cat"))
(define animal (ConceptNode "animal"))
(InheritanceLink tom cat)
(InheritanceLink cat animal (stv 0.99 0.9))
(InheritanceLink (ConceptNode "Felix") cat)
(EvaluationLink (PredicateNode "likes") (ListLink tom (ConceptNode "fish")))

(display "Tom's truth value: ") (display (cog-tv tom)) (newline)

;; Walking incoming sets: what holds cat?
(display "Links holding cat:\n")
(for-each display (cog-incoming-set cat))
(format #t "cat has ~a incoming links, ~a of them InheritanceLinks\n"
        (cog-incoming-size cat) (length (cog-incoming-by-type cat 'InheritanceLink)))

;; Values.
(cog-set-value! tom (PredicateNode "weight") (FloatValue 4.2 4.4))
(cog-set-value! tom (PredicateNode "nicknames") (StringValue "Tommy" "T"))
(format #t "Tom weighs ~a\n" (cog-value->list (cog-value tom (PredicateNode "weight"))))

;; A GetLink: who are the cats?
(define cats (cog-execute!
  (GetLink (InheritanceLink (VariableNode "$x") cat))))
(display "The cats: ") (display cats)

;; A BindLink: every cat is a pet.
(define pets (cog-execute!
  (BindLink
    (VariableList (TypedVariableLink (VariableNode "$x") (TypeNode "ConceptNode")))
    (InheritanceLink (VariableNode "$x") cat)
    (InheritanceLink (VariableNode "$x") (ConceptNode "pet")))))
(format #t "BindLink made ~a links\n" (cog-arity pets))

;; Store everything, then load it into a fresh atomspace.
(define dir (if (> (length (command-line)) 1)
                (cadr (command-line))
                (string-append "/tmp/atomweave-classic-" (number->string (getpid)))))
(define store (RocksStorageNode (string-append "rocks://" dir)))
(cog-open store)
(store-atomspace)
(barrier)
(cog-close store)

(define fresh (cog-new-atomspace))
(cog-set-atomspace! fresh)
(define store2 (RocksStorageNode (string-append "rocks://" dir)))
(cog-open store2)
(load-atomspace)
(cog-close store2)
(format #t "Loaded ~a atoms back; Tom is ~a"
        (length (cog-get-atoms 'Atom #t)) (cog-node 'ConceptNode "Tom"))
(format #t "with truth value ~a and weight ~a\n"
        (cog-tv (cog-node 'ConceptNode "Tom"))
        (cog-value->list (cog-value (cog-node 'ConceptNode "Tom") (PredicateNode "weight"))))

;; A store of our own making goes away; one named on the command line stays.
(when (= (length (command-line)) 1)
  (system* "rm" "-rf" dir))
