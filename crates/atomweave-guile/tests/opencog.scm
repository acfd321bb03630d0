;;; The (opencog) test suite: every function of the Scheme API, its errors,
;;; printing, persistence and queries. Run by `make test-scheme`:
;;;   GUILE_EXTENSIONS_PATH=target/debug guile -L crates/atomweave-guile/scheme \
;;;     crates/atomweave-guile/tests/opencog.scm

(use-modules (opencog) (opencog exec) (opencog persist) (opencog persist-rocks)
             (opencog persist-cog) (opencog persist-file)
             (srfi srfi-1) (srfi srfi-64) (ice-9 threads) (ice-9 popen) (ice-9 rdelim)
             (ice-9 regex))

(define (raises-with? text thunk)
  "Whether THUNK raises an exception whose message mentions TEXT."
  (catch #t
    (lambda () (thunk) #f)
    (lambda (key . args)
      (string-contains (call-with-output-string
                         (lambda (p) (print-exception p #f key args)))
                       text))))

(define (tmpdir)
  (let ((d (string-append (or (getenv "TMPDIR") "/tmp") "/aw-scm-"
                          (number->string (getpid)) "-" (number->string (random 1000000000)))))
    d))

(test-begin "opencog")

;; ----- atoms -----
(test-group "nodes and links"
  (define a (ConceptNode "a"))
  (define b (Concept "b" (stv 0.9 0.8)))
  (define l (InheritanceLink a b))
  (test-assert "cog-atom?" (cog-atom? a))
  (test-assert "cog-node?" (cog-node? a))
  (test-assert "not cog-link?" (not (cog-link? a)))
  (test-assert "cog-link?" (cog-link? l))
  (test-equal "cog-name" "a" (cog-name a))
  (test-equal "cog-name of a link" "" (cog-name l))
  (test-eq "cog-type" 'ConceptNode (cog-type a))
  (test-eq "cog-type link" 'InheritanceLink (cog-type l))
  (test-equal "cog-arity" 2 (cog-arity l))
  (test-equal "cog-arity node" 0 (cog-arity a))
  (test-assert "equal? same atom" (equal? a (ConceptNode "a")))
  (test-assert "equal? by long and short names" (equal? (Concept "a") (cog-new-node 'ConceptNode "a")))
  (test-assert "not equal? other atom" (not (equal? a b)))
  (test-equal "cog-outgoing-set" (list a b) (cog-outgoing-set l))
  (test-equal "cog-outgoing-atom" b (cog-outgoing-atom l 1))
  (test-equal "cog-incoming-set" (list l) (cog-incoming-set a))
  (test-equal "cog-incoming-size" 1 (cog-incoming-size b))
  (test-equal "cog-incoming-by-type" (list l) (cog-incoming-by-type a 'InheritanceLink))
  (test-equal "cog-incoming-by-type none" '() (cog-incoming-by-type a 'ListLink))
  (test-equal "cog-new-link" l (cog-new-link 'InheritanceLink a b))
  (test-equal "cog-new-link with a list" (ListLink a b) (cog-new-link 'ListLink (list a b)))
  (test-equal "cog-node finds" a (cog-node 'ConceptNode "a"))
  (test-equal "cog-node absent" '() (cog-node 'ConceptNode "no such"))
  (test-equal "cog-link finds" l (cog-link 'InheritanceLink a b))
  (test-equal "cog-link absent" '() (cog-link 'InheritanceLink b a))
  (test-assert "node type predicate" (cog-subtype? 'Node 'ConceptNode))
  (test-assert "not a subtype" (not (cog-subtype? 'Link 'ConceptNode)))
  (test-assert "cog-get-types" (memq 'ConceptNode (cog-get-types)))
  (test-assert "cog-get-subtypes" (memq 'ConceptNode (cog-get-subtypes 'Node)))
  (test-equal "unordered links equal in any order" (SetLink a b) (SetLink b a))
  (test-equal "cog-handle and cog-atom" l (cog-atom (cog-handle l)))
  (test-assert "cog-handle is a number" (integer? (cog-handle a)))
  (test-equal "cog-atom of no atom" '() (cog-atom 4000000000))
  (test-assert "cog-atom wants a number" (raises-with? "handle" (lambda () (cog-atom "x")))))

(test-group "extract"
  (define x (Concept "x"))
  (define y (Concept "y"))
  (define xy (List x y))
  (test-assert "refused while held" (not (cog-extract! x)))
  (test-assert "recursive" (cog-extract-recursive! x))
  (test-equal "link gone" '() (cog-link 'ListLink x y))
  (test-equal "y keeps no incoming" 0 (cog-incoming-size y))
  (test-assert "extract again" (not (cog-extract! x)))
  (test-assert "an extracted atom raises" (raises-with? "extracted" (lambda () (cog-name x))))
  (test-equal "an extracted atom prints" "#<Invalid handle>" (format #f "~a" x)))

;; ----- truth values -----
(test-group "truth values"
  (define a (Concept "tv-a"))
  (test-equal "default" (stv 1 0) (cog-tv a))
  (cog-set-tv! a (stv 0.5 0.25))
  (test-equal "set" (stv 0.5 0.25) (cog-tv a))
  (test-equal "cog-new-stv" (cog-new-stv 0.5 0.25) (cog-tv a))
  (test-equal "cog-mean" 0.5 (cog-mean a))
  (test-equal "cog-confidence" 0.25 (cog-confidence (cog-tv a)))
  (test-assert "cog-tv?" (cog-tv? (cog-tv a)))
  (test-assert "a truth value is a value" (cog-value? (stv 1 1)))
  (test-equal "ctv" '(0.5 0.5 10.0) (cog-value->list (ctv 0.5 0.5 10)))
  (test-equal "cog-new-ctv" (ctv 1 0 3) (cog-new-ctv 1 0 3))
  (define c (Concept "counted"))
  (cog-inc-count! c 2)
  (cog-inc-count! c 3)
  (test-equal "cog-inc-count!" 5.0 (cog-count c))
  (test-equal "constructor with a truth value" (stv 0.1 0.2) (cog-tv (Concept "with-tv" (stv 0.1 0.2))))
  (test-equal "link constructor with a truth value" (stv 0.3 0.4) (cog-tv (List a c (stv 0.3 0.4))))
  (test-equal "prints" "(stv 0.5 0.25)" (format #f "~a" (stv 0.5 0.25))))

;; ----- values -----
(test-group "values"
  (define a (Concept "val-a"))
  (define k (Predicate "key"))
  (define k2 (Predicate "key2"))
  (test-equal "none" #f (cog-value a k))
  (cog-set-value! a k (FloatValue 1 2 3))
  (test-equal "FloatValue" (FloatValue 1 2 3) (cog-value a k))
  (test-equal "cog-value->list" '(1.0 2.0 3.0) (cog-value->list (cog-value a k)))
  (test-equal "cog-value-ref" 2.0 (cog-value-ref (cog-value a k) 1))
  (cog-set-value! a k2 (StringValue "x" "y"))
  (test-equal "StringValue" '("x" "y") (cog-value->list (cog-value a k2)))
  (test-equal "cog-keys" 2 (length (cog-keys a)))
  (test-assert "cog-keys holds the keys" (lset= equal? (list k k2) (cog-keys a)))
  (cog-set-value! a k (LinkValue (Concept "m") (FloatValue 4)))
  (test-equal "LinkValue" (list (Concept "m") (FloatValue 4)) (cog-value->list (cog-value a k)))
  (test-equal "LinkValue prints" "(LinkValue (ConceptNode \"m\")(FloatValue 4))" (format #f "~a" (cog-value a k)))
  ;; LinkValues nest at most 256 deep, as in a space: a loop that nests
  ;; them deeper gets an error at level 257, not a crash.
  (let loop ((v (FloatValue 1)) (i 0))
    (if (< i 256)
        (loop (LinkValue v) (+ i 1))
        (begin
          (cog-set-value! a k v)
          (test-equal "256 levels of LinkValue" v (cog-value a k))
          (test-error "257 levels of LinkValue" #t (LinkValue v)))))
  ;; A link of shared members prints each at every place: one doubled 40
  ;; times (2^40 leaves) prints as a note saying so, not until memory ends.
  (let loop ((x (Concept "leaf")) (i 0))
    (if (< i 40)
        (loop (List x x) (+ i 1))
        (test-assert "an atom too large to print"
                     (string-contains (format #f "~a" x) "prints to more than 256 MiB"))))
  (cog-set-value! a k #f)
  (test-equal "removed" #f (cog-value a k))
  (cog-set-values! a (list (cons k (FloatValue 7)) (cons k2 (StringValue "z"))))
  (test-equal "cog-set-values!" (FloatValue 7) (cog-value a k))
  (test-equal "cog-keys->alist" (list (cons k (FloatValue 7)) (cons k2 (StringValue "z")))
              (sort (cog-keys->alist a) (lambda (x y) (string<? (cog-name (car x)) (cog-name (car y))))))
  (cog-set-tv! a (stv 0.2 0.3))
  (test-equal "the truth value under its key"
              (stv 0.2 0.3) (cog-value a (Predicate "*-TruthValueKey-*")))
  (test-equal "cog-value->list of a node" '("val-a") (cog-value->list a))
  (test-equal "value types" 'FloatValue (cog-type (FloatValue 1)))
  (test-assert "BoolValue" (equal? '(#t #f) (cog-value->list (BoolValue #t #f))))
  ;; Many keys: the objects made for them survive collections while the
  ;; list is built.
  (let ((many (Concept "many keys")))
    (for-each (lambda (i) (cog-set-value! many (Predicate (number->string i)) (FloatValue i)))
              (iota 3000))
    (test-assert "cog-keys->alist under collections"
      (every (lambda (round)
               (gc)
               (let ((alist (cog-keys->alist many)))
                 (and (= 3000 (length alist))
                      (every (lambda (kv)
                               (equal? (cdr kv) (FloatValue (string->number (cog-name (car kv))))))
                             alist))))
             (iota 5)))))

;; ----- printing -----
(test-group "printing"
  (define e (Evaluation (stv 0.9 0.8)
              (Predicate "breathe")
              (List (Concept "birds" (stv 0.5 0.1)) (Concept "air"))))
  (test-equal "REPL form"
    "(Evaluation (stv 0.9 0.8)\n  (Predicate \"breathe\")\n  (List\n    (Concept \"birds\" (stv 0.5 0.1))\n    (Concept \"air\")))\n"
    (format #f "~a" e))
  (test-equal "a node" "(Concept \"air\")\n" (with-output-to-string (lambda () (display (Concept "air")))))
  (test-equal "names beyond ASCII" "(Concept \"été λ\")\n" (format #f "~a" (Concept "été λ")))
  (test-equal "values beyond ASCII" "(StringValue \"été\")" (format #f "~a" (StringValue "été")))
  (test-assert "cog-prt-atomspace shows the roots"
    (string-contains (with-output-to-string (lambda () (cog-prt-atomspace))) "(Predicate \"breathe\")")))

;; ----- atomspaces -----
(test-group "atomspaces"
  (define main (cog-atomspace))
  (define other (cog-new-atomspace))
  (test-assert "cog-atomspace?" (cog-atomspace? other))
  (test-assert "different" (not (equal? main other)))
  (test-equal "cog-set-atomspace! returns the previous" main (cog-set-atomspace! other))
  (Concept "only-in-other")
  (test-equal "atoms go to the current space" 1 (cog-count-atoms 'ConceptNode))
  (test-equal "cog-atomspace of an atom" other (cog-atomspace (Concept "only-in-other")))
  (cog-set-atomspace! main)
  (test-equal "not in main" '() (cog-node 'ConceptNode "only-in-other"))
  (test-equal "explicit space" 1 (length (cog-get-atoms 'ConceptNode #f other)))
  (test-equal "an atom of another space is copied in a link"
              (List (Concept "only-in-other")) (List (cog-node 'ConceptNode "only-in-other" other)))
  (define child (cog-new-atomspace main))
  (cog-set-atomspace! child)
  (test-equal "a child sees its base" (Concept "a") (cog-node 'ConceptNode "a"))
  (Concept "child-only")
  (cog-set-atomspace! main)
  (test-equal "the base does not see the child" '() (cog-node 'ConceptNode "child-only"))
  ;; A space of another hierarchy: the atom of the same content there, or none.
  (define elsewhere (cog-new-atomspace))
  (define here (Concept "a"))
  (test-equal "no incoming set where the atom is not" '() (cog-incoming-set here elsewhere))
  (test-assert "nothing extracted where the atom is not" (not (cog-extract! here elsewhere)))
  (cog-set-atomspace! elsewhere)
  (define there (Concept "a"))
  (define there-link (List there))
  (cog-set-atomspace! main)
  (test-equal "the same content's incoming set there" (list there-link) (cog-incoming-set here elsewhere))
  (test-assert "extracts the same content there" (cog-extract-recursive! here elsewhere))
  (test-equal "and leaves this one" "a" (cog-name here))
  (cog-atomspace-clear other)
  (test-equal "cog-atomspace-clear" 0 (length (cog-get-atoms 'Atom #t other)))
  (test-assert "threads inherit the current space"
    (let ((seen #f))
      (cog-set-atomspace! other)
      (join-thread (call-with-new-thread (lambda () (set! seen (cog-atomspace)))))
      (cog-set-atomspace! main)
      (equal? seen other))))

(test-group "whole-space calls"
  (define s (cog-new-atomspace))
  (define prev (cog-set-atomspace! s))
  (Inheritance (Concept "cat") (Concept "animal"))
  (Member (Concept "tom") (Concept "cat"))
  (test-equal "cog-get-atoms" 3 (length (cog-get-atoms 'ConceptNode)))
  (test-equal "cog-get-atoms with subtypes" 5 (length (cog-get-atoms 'Atom #t)))
  (test-equal "cog-count-atoms" 1 (cog-count-atoms 'InheritanceLink))
  (test-equal "cog-count-atoms of an exact type" 0 (cog-count-atoms 'Link))
  (test-equal "cog-count-atoms in a space" 0 (cog-count-atoms 'InheritanceLink (cog-new-atomspace)))
  (test-equal "cog-get-all-roots" 2 (length (cog-get-all-roots)))
  (test-equal "cog-report-counts" 3 (assq-ref (cog-report-counts) 'ConceptNode))
  (cog-set-atomspace! prev))

(test-group "utilities"
  (define s (cog-new-atomspace))
  (define prev (cog-set-atomspace! s))
  (define tom (Concept "Tom"))
  (define cat (Concept "cat"))
  (define l1 (Inheritance tom cat))
  (define l2 (Inheritance (Concept "Felix") cat))
  (define ev (Evaluation (Predicate "likes") (List tom (Concept "fish"))))
  (test-equal "cog-new-value" (FloatValue 1 2) (cog-new-value 'FloatValue 1 2))
  (test-assert "cog-node-type?" (and (cog-node-type? 'ConceptNode) (not (cog-node-type? 'ListLink))))
  (test-assert "cog-link-type?" (cog-link-type? 'ListLink))
  (test-assert "cog-value-type?" (cog-value-type? 'FloatValue))
  (test-equal "count-all" 9 (count-all))
  (test-equal "cog-map-type stops at a value" "cat"
              (cog-map-type (lambda (a) (and (equal? a cat) (cog-name a))) 'ConceptNode))
  (test-equal "cog-filter" (list l1) (cog-filter 'InheritanceLink (list tom l1 cat)))
  (test-equal "cog-get-partner" cat (cog-get-partner l1 tom))
  (test-equal "cog-get-link" (list l1) (cog-get-link 'InheritanceLink 'ConceptNode tom))
  (test-assert "cog-chase-link" (lset= equal? (list tom (Concept "Felix")) (cog-chase-link 'InheritanceLink 'ConceptNode cat)))
  (test-assert "cog-get-root" (lset= equal? (list l1 ev) (cog-get-root tom)))
  (test-assert "cog-get-all-nodes" (lset= equal? (list (Predicate "likes") tom (Concept "fish")) (cog-get-all-nodes ev)))
  (extract-hypergraph ev)
  (test-equal "extract-hypergraph keeps what others hold" "Tom" (cog-name tom))
  (test-equal "and removes the rest" '() (cog-node 'ConceptNode "fish"))
  (cog-set-atomspace! prev))

;; ----- queries -----
(test-group "queries"
  (define s (cog-new-atomspace))
  (define prev (cog-set-atomspace! s))
  (Inheritance (Concept "Ben") (Concept "human"))
  (Inheritance (Concept "Linas") (Concept "human"))
  (define got (cog-execute! (Get (Inheritance (Variable "$H") (Concept "human")))))
  (test-equal "GetLink" (Set (Concept "Ben") (Concept "Linas")) got)
  (define bound (cog-execute! (Bind (Inheritance (Variable "$H") (Concept "human"))
                                    (Evaluation (Predicate "mortal") (Variable "$H")))))
  (test-equal "BindLink" 2 (cog-arity bound))
  (test-assert "BindLink rewrites" (cog-link? (cog-link 'EvaluationLink (Predicate "mortal") (Concept "Ben"))))
  (test-equal "SatisfactionLink" (stv 1 1)
              (cog-evaluate! (Satisfaction (Inheritance (Variable "$H") (Concept "human")))))
  (test-equal "QueryLink gives a value"
              'LinkValue (cog-type (cog-execute! (Query (Inheritance (Variable "$H") (Concept "human")) (Variable "$H")))))
  (test-assert "a bad query raises" (raises-with? "cog-execute!" (lambda () (cog-execute! (Get)))))
  (cog-set-atomspace! prev))

;; ----- errors -----
(test-group "errors"
  (test-assert "a number is not an atom" (raises-with? "expected an atom" (lambda () (cog-new-link 'ListLink 42))))
  (test-assert "the message names the procedure" (raises-with? "cog-new-link" (lambda () (cog-new-link 'ListLink 42))))
  (test-assert "unknown type" (raises-with? "unknown atom type" (lambda () (cog-new-node 'NoSuchNode "x"))))
  (test-assert "a link type is not a node type" (raises-with? "not a node type" (lambda () (cog-new-node 'ListLink "x"))))
  (test-assert "a node needs a name" (raises-with? "name" (lambda () (cog-new-node 'ConceptNode 42))))
  (test-assert "wrong-type-arg key"
    (catch 'wrong-type-arg (lambda () (cog-name 7) #f) (lambda _ #t)))
  (test-assert "bad truth value" (raises-with? "truth value" (lambda () (cog-set-tv! (Concept "a") 3))))
  (test-assert "stv needs numbers" (raises-with? "number" (lambda () (stv "a" 1))))
  (test-assert "index past the end" (raises-with? "past the end" (lambda () (cog-outgoing-atom (List (Concept "a")) 5))))
  (test-assert "bad alist" (raises-with? "association list" (lambda () (cog-set-values! (Concept "a") '(1 2)))))
  (test-assert "an improper list" (raises-with? "proper list" (lambda () (List (cons (Concept "a") (Concept "b"))))))
  (test-assert "a circular list" (raises-with? "proper list"
    (lambda () (let ((l (list (Concept "a")))) (set-cdr! l l) (List l)))))
  (test-assert "a failed link adds nothing"
    (let* ((member (Concept "fresh-one"))
           (n (length (cog-get-atoms 'Atom #t))))
      (and (raises-with? "expected" (lambda () (List member 42)))
           (= n (length (cog-get-atoms 'Atom #t))))))
  (test-assert "no store open" (raises-with? "no StorageNode is open" (lambda () (barrier))))
  (test-assert "errors leave the extension usable" (cog-atom? (Concept "still fine"))))

;; ----- persistence -----
(test-group "persistence"
  (define dir (tmpdir))
  (define sn (RocksStorageNode (string-append "rocks://" dir)))
  (define s (cog-new-atomspace))
  (define prev (cog-set-atomspace! s))
  (cog-open sn)
  (test-assert "cog-connected?" (cog-connected? sn))
  (define cat (Concept "cat" (stv 0.7 0.6)))
  (define l (Inheritance cat (Concept "animal")))
  (cog-set-value! cat (Predicate "weight") (FloatValue 4.5))
  (store-atom l)
  (store-atom cat)
  (store-value cat (Predicate "weight"))
  (define n (Concept "counter"))
  (update-value n (Predicate "hits") (FloatValue 2))
  (update-value n (Predicate "hits") 3)
  (test-equal "update-value" (FloatValue 5) (cog-value n (Predicate "hits")))
  (barrier)
  (cog-close sn)
  (test-assert "closed" (not (cog-connected? sn)))

  ;; Read it back into an empty space.
  (define t (cog-new-atomspace))
  (cog-set-atomspace! t)
  (define sn2 (RocksStorageNode (string-append "rocks://" dir)))
  (cog-open sn2)
  (define cat2 (Concept "cat"))
  (fetch-atom cat2)
  (test-equal "fetch-atom gets the truth value" (stv 0.7 0.6) (cog-tv cat2))
  (test-equal "and the values" (FloatValue 4.5) (cog-value cat2 (Predicate "weight")))
  (fetch-incoming-set cat2)
  (test-equal "fetch-incoming-set" 1 (cog-incoming-size cat2))
  (fetch-value (Concept "counter") (Predicate "hits"))
  (test-equal "fetch-value" (FloatValue 5) (cog-value (Concept "counter") (Predicate "hits")))
  (define u (cog-new-atomspace))
  (cog-set-atomspace! u)
  (test-assert "load-atomspace" (> (load-atomspace) 3))
  (test-assert "loaded the link" (cog-link? (cog-link 'InheritanceLink (Concept "cat") (Concept "animal"))))
  (define v (cog-new-atomspace))
  (load-atoms-of-type 'ConceptNode v)
  (test-equal "load-atoms-of-type" 3 (cog-count-atoms 'ConceptNode v))
  (define w (cog-new-atomspace))
  (cog-set-atomspace! w)
  (fetch-incoming-by-type (Concept "animal") 'ListLink)
  (test-equal "fetch-incoming-by-type, another type" 0 (cog-incoming-size (Concept "animal")))
  (fetch-incoming-by-type (Concept "animal") 'InheritanceLink)
  (test-equal "fetch-incoming-by-type" 1 (cog-incoming-size (Concept "animal")))
  (cog-set-atomspace! t)
  (fetch-incoming-set (Concept "animal"))
  (test-assert "cog-delete! refused while held" (not (cog-delete! (Concept "animal"))))
  (test-assert "cog-delete-recursive!" (cog-delete-recursive! (Concept "animal")))
  (test-assert "fetch-query needs a server" (raises-with? "cannot run queries"
    (lambda () (fetch-query (Get (Variable "$x")) (Predicate "k")))))
  (Concept "new-one")
  (test-assert "store-atomspace" (> (store-atomspace) 0))
  (cog-close sn2)
  (test-assert "a store that cannot be reached raises" (raises-with? "cannot be reached" (lambda () (cog-open (PostgresStorageNode "postgres://nosuchuser@127.0.0.1:1/nodb")))))
  (test-assert "nothing left open" (raises-with? "no StorageNode is open" (lambda () (barrier))))
  (system* "rm" "-rf" dir)
  (cog-set-atomspace! prev))

;; ----- the shell's reader -----
(define (guile-read-all text)
  (call-with-input-string text
    (lambda (port)
      (let loop ((forms '()))
        (let ((x (read port)))
          (if (eof-object? x) (reverse forms) (loop (cons x forms))))))))

(define (same-as-guile? text)
  "Whether the shell's reader reads TEXT as Guile does, or leaves it to Guile (#f)."
  (let ((ours (%atomweave-read text)))
    (or (not ours) (equal? ours (guile-read-all text)))))

(test-group "the shell's reader"
  ;; Each text whole, and each of its words alone (a word the shell leaves
  ;; to Guile would otherwise hide the others).
  (for-each
    (lambda (text)
      (test-assert text (same-as-guile? text))
      (for-each (lambda (word) (test-assert word (same-as-guile? word)))
                (string-split text #\space)))
    '("(cog-new-node 'ConceptNode \"a b\")" "1 -1 +5 .5 -.5 1. 1e5 1E-3 -2.5e+3 12345678901234567890"
      "- + ... 1+ -> <=? a.b foo-bar! *x* $x" "\"esc \\\" \\\\ \\n \\t\"" "#t #f #true #false"
      "'x ''x '(a 'b) (a . b) #(1 2) #\\a #:key #;(skip) x #| block |# y" "; comment\n(a ; more\n b)"
      "1/2" "+inf.0" "-nan.0" "+i" "-i" "-x" "->" "0.1 -0 1d3 1f3 x'y 1e3'x 12.-7 -.e1 1e +e1" "`(a ,b)" "(a (b (c (d))))" "[a b]" "|sym bol|" "\"\u00e9t\u00e9\" été λ"))
  (test-equal "unbalanced text is left to Guile" #f (%atomweave-read "(a (b)"))
  (test-equal "so are numbers out of range" #f (%atomweave-read "1e400"))
  (test-equal "and other exponent markers" #f (%atomweave-read "1d3"))
  (test-equal "plain numbers are read here" '(1 -0.5 1000.0 x'y) (%atomweave-read "1 -.5 1e3 x'y"))
  (test-equal "the forms, in order" '((a 1) "s" b) (%atomweave-read "(a 1) \"s\" b"))
  ;; Random plain text: symbols, numbers, strings, quotes, lists, comments.
  (let ((pieces #("a" "ab-c" "x?" "+" "-" "1" "-7" "3.25" "-0.5" "1e3" "\"s\"" "\"q\\\"q\"" "#t" "#f"
                  "'" "(" ")" " " "\n" "; c\n" "cog-tv" "Concept" "12." ".7" "d" "E" "99999999999999999999")))
    (set! *random-state* (seed->random-state 42))
    (test-assert "2000 random texts read as Guile reads them"
      (every (lambda (_)
               (let ((text (string-concatenate
                            (map (lambda (_) (vector-ref pieces (random (vector-length pieces))))
                                 (iota (+ 1 (random 30)))))))
                 (or (same-as-guile? text)
                     (begin (format #t "differs: ~s\n" text) #f))))
             (iota 2000)))))

;; ----- a server as the store: fetch-query -----
(define (start-server)
  "Starts `atomweave serve` on a free port ($ATOMWEAVE_BIN); its port."
  (let* ((bin (or (getenv "ATOMWEAVE_BIN") (error "set ATOMWEAVE_BIN to the atomweave binary")))
         (pipe (open-pipe* OPEN_READ "sh" "-c" (string-append "exec " bin " serve --port 0 --no-http 2>&1")))
         (line (read-line pipe))
         (m (string-match "listening on 127.0.0.1:([0-9]+)" line)))
    (unless m (error "the server did not start:" line))
    (cons (string->number (match:substring m 1)) pipe)))

(define (stop-server server)
  (let ((s (socket PF_INET SOCK_STREAM 0)))
    (connect s AF_INET INADDR_LOOPBACK (car server))
    (display "shutdown\n" s)
    (force-output s)
    (close-port s)
    (close-pipe (cdr server))))

(test-group "network store"
  (define server (start-server))
  (dynamic-wind
    (const #t)
    (lambda ()
      (define url (string-append "cog://127.0.0.1:" (number->string (car server))))
      (define s (cog-new-atomspace))
      (define prev (cog-set-atomspace! s))
      (define sn (CogStorageNode url))
      (cog-open sn)
      (store-atom (Inheritance (Concept "Ben") (Concept "human")))
      (store-atom (Inheritance (Concept "Linas") (Concept "human")))
      (barrier)
      (define t (cog-new-atomspace))
      (cog-set-atomspace! t)
      (define q (Get (Inheritance (Variable "$H") (Concept "human"))))
      (define got (fetch-query q (Predicate "results")))
      (test-equal "fetch-query runs on the server" (Set (Concept "Ben") (Concept "Linas")) got)
      (test-equal "and sets its result here" got (cog-value q (Predicate "results")))
      (test-assert "fetch-query fresh" (cog-atom? (fetch-query q (Predicate "results") #t)))
      (cog-close sn)
      (cog-set-atomspace! prev))
    (lambda () (stop-server server))))

;; ----- the data corpus: `atomweave load` makes what Guile makes -----
(define corpus-dir
  (string-append (dirname (current-filename)) "/../../../tests/corpus"))

(define (corpus-families path)
  "The families a corpus file's first line names (;; types: nlp ...)."
  (let ((line (call-with-input-file path read-line)))
    (if (string-prefix? ";; types: " line)
        (string-split (substring line 10) #\space)
        '())))

(define family-modules
  '(("nlp" opencog nlp) ("bio" opencog bioscience) ("pln" opencog pln)
    ("spacetime" opencog spacetime) ("attention" opencog attention)
    ("legacy" atomweave legacy)))

(define (sorted-lines command)
  "The lines COMMAND prints, sorted; #f if it fails."
  (let* ((port (open-input-pipe command))
         (text (read-string port))
         (status (close-pipe port)))
    (and (zero? (status:exit-val status))
         (sort (string-split (string-trim-right text #\newline) #\newline) string<?))))

(define (dump-command path families)
  (string-append (getenv "ATOMWEAVE_BIN") " dump -f repl"
                 (if (null? families) "" (string-append " --types " (string-join families ",")))
                 " '" path "'"))

(test-group "data corpus: atomweave load gives the atoms Guile gives"
  (for-each
    (lambda (name)
      (let* ((path (string-append corpus-dir "/" name))
             (families (corpus-families path))
             (space (cog-new-atomspace))
             (old (cog-set-atomspace! space))
             (module (make-fresh-user-module))
             (out (string-append (tmpdir) "-" name)))
        ;; The file evaluated as `guile -l FILE` would, after (opencog) and
        ;; the families' modules, in a module of its own.
        (module-use! module (resolve-interface '(opencog)))
        (for-each (lambda (f) (module-use! module (resolve-interface (assoc-ref family-modules f))))
                  families)
        (save-module-excursion
          (lambda () (set-current-module module) (primitive-load path)))
        (call-with-output-file out
          (lambda (port)
            (for-each (lambda (a) (write a port) (newline port)) (cog-get-all-roots))))
        (cog-set-atomspace! old)
        (let ((loaded (sorted-lines (dump-command path families)))
              (evaluated (sorted-lines (dump-command out families))))
          (test-assert (string-append name ": atomweave load reads it") (pair? loaded))
          (test-equal name evaluated loaded))
        (delete-file out)))
    '("setlocale-preamble.scm" "definitions.scm" "block-comments.scm" "nlp-parse.scm"
      "bio.scm" "pln.scm" "legacy.scm" "attention.scm")))

(test-group "a file store whose file holds Scheme"
  (let* ((file (string-append (tmpdir) ".scm"))
         (s (cog-new-atomspace))
         (prev (cog-set-atomspace! s)))
    (call-with-output-file file
      (lambda (port)
        (display "(define (pair a b) (ListLink (ConceptNode a) (ConceptNode b)))\n(pair \"x\" \"y\")\n(ConceptNode \"plain\")\n" port)))
    (let ((sn (FileStorageNode (string-append "file://" file)))
          (into (cog-new-atomspace)))
      (cog-open sn)
      (cog-set-atomspace! into)
      (test-assert "load-atomspace evaluates its Scheme" (> (load-atomspace) 0))
      (test-assert "the helper's atoms" (cog-link? (cog-link 'ListLink (cog-node 'ConceptNode "x") (cog-node 'ConceptNode "y"))))
      (test-assert "the data after it" (cog-atom? (cog-node 'ConceptNode "plain")))
      (test-equal "the current space stays the caller's" into (cog-atomspace))
      (cog-close sn))
    (cog-set-atomspace! prev)
    (delete-file file)))

(test-group "attention values"
  (let ((a (Concept "with-av" (av 1 2 3))))
    (test-assert (cog-av? (cog-av a)))
    (test-equal '(1.0 2.0 3.0) (cog-value->list (cog-av a)))
    (test-equal 2.0 (cog-av-lti a))
    (test-equal '(0.0 0.0 0.0) (cog-value->list (cog-av (Concept "no-av"))))
    (cog-set-av! a (av 4 5 6))
    (test-equal 4.0 (cog-av-sti a))
    (test-assert "the key is not a root of the space's dump"
      (not (member "*-AttentionValueKey-*" (map (lambda (x) (if (cog-node? x) (cog-name x) "")) (cog-get-all-roots)))))
    (test-assert "nor among the space's PredicateNodes"
      (not (member "*-AttentionValueKey-*" (map cog-name (cog-get-atoms 'PredicateNode)))))
    (test-equal "nor counted" (length (cog-get-atoms 'PredicateNode)) (cog-count-atoms 'PredicateNode))))

(define failures (test-runner-fail-count (test-runner-current)))
(test-end "opencog")
(exit (if (zero? failures) 0 1))
