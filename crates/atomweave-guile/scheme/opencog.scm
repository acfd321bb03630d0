;;; (opencog): atomweave's AtomSpace, with upstream OpenCog's Scheme API.
;;;
;;; The cog-* functions, a constructor for every atom and value type (long
;;; and short names: ConceptNode, Concept, FloatValue), truth values (stv,
;;; ctv), atomspaces, queries (cog-execute!) and the StorageNode calls. All
;;; of them are defined by the extension this module loads.

(define-module (opencog)
  #:use-module (srfi srfi-1)
  #:use-module (srfi srfi-9)
  #:use-module (ice-9 threads)
  ;; Loading it makes the full `format` (~D, ~F, ...) everyone's, as
  ;; upstream's (opencog) does through its logger; scripts rely on that.
  #:use-module (ice-9 format))


;; Loaded when this file is compiled too, so that the compiler knows the
;; primitives the definitions below use.
(eval-when (expand load eval)
  (catch #t
    (lambda () (load-extension "libatomweave_guile" "atomweave_guile_init"))
    (lambda (key . args)
      ;; Forget the half-made module, so that a later use-modules tries
      ;; again (and says this again) instead of finding it empty.
      (hashq-remove! (module-submodules (resolve-module '() #f)) 'opencog)
      (error (string-append
              "(opencog) cannot load atomweave's extension libatomweave_guile.so: build it"
              " and point Guile at it (eval \"$(make -s guile-env)\"), or install it"
              " (make install-guile). "
              (string-trim-right
               (call-with-output-string (lambda (port) (print-exception port #f key args)))
               #\newline))))))

; The extension's failures are upstream's C++-EXCEPTION (procedure message),
; which scripts catch by that key; printed as Guile prints an error.
(set-exception-printer! 'C++-EXCEPTION
  (lambda (port key args default-printer)
    (if (and (pair? args) (pair? (cdr args)))
        (format port "In procedure ~a: ~a" (car args) (cadr args))
        (default-printer))))

(define* (cog-prt-atomspace #:optional (atomspace (cog-atomspace)))
  "Prints every atom of ATOMSPACE that no link holds, in the REPL form."
  (for-each display (cog-get-all-roots atomspace)))

(export cog-prt-atomspace)

;; ----- upstream's utilities (opencog/base/utilities.scm), by their names -----

(define-public (cog-new-value type . args)
  "A value of TYPE from ARGS: (cog-new-value 'FloatValue 1 2 3)."
  (apply cog-new-atom type args))

(define-public (cog-node-type? type) (cog-subtype? 'Node type))
(define-public (cog-link-type? type) (cog-subtype? 'Link type))
(define-public (cog-value-type? type) (cog-subtype? 'Value type))

(define-public (count-all . space)
  "How many atoms the atomspace given (by default the current one) holds."
  (length (apply cog-get-atoms 'Atom #t space)))

(define-public (cog-map-type proc type . space)
  "Calls PROC on every atom of TYPE (subtypes excluded) in the atomspace
given (by default the current one) until it returns something other than
#f; that value, or #f."
  (let loop ((atoms (apply cog-get-atoms type #f space)))
    (and (pair? atoms)
         (or (proc (car atoms)) (loop (cdr atoms))))))

(define-public (cog-filter type atoms)
  "The atoms of ATOMS whose type is TYPE."
  (filter (lambda (a) (eq? type (cog-type a))) atoms))

(define-public (cog-get-partner pair atom)
  "The other member of the two-member link PAIR."
  (let ((out (cog-outgoing-set pair)))
    (if (equal? atom (car out)) (cadr out) (car out))))

(define-public (cog-get-link link-type endpoint-type anchor)
  "The links of LINK-TYPE holding ANCHOR, each once for every member of
ENDPOINT-TYPE it has (ANCHOR too, if of that type)."
  (let ((found '()))
    (cog-map-apply-link link-type endpoint-type (lambda (l) (set! found (cons l found))) anchor)
    found))

(define-public (cog-chase-link link-type endpoint-type anchor)
  "The members of ENDPOINT-TYPE of the links of LINK-TYPE holding ANCHOR
(ANCHOR too, if of that type), once per link they are in."
  (let ((found '()))
    (cog-map-chase-link link-type endpoint-type (lambda (x) (set! found (cons x found))) anchor)
    found))

(define-public (cog-get-root atom)
  "The links, holding ATOM directly or not, that nothing holds."
  (let ((in (cog-incoming-set atom)))
    (if (null? in)
        (list atom)
        (delete-duplicates (append-map cog-get-root in)))))

(define-public (cog-get-all-nodes atom)
  "Every node inside ATOM (itself, if it is a node)."
  (if (cog-node? atom)
      (list atom)
      (delete-duplicates (append-map cog-get-all-nodes (cog-outgoing-set atom)))))

(define-public (extract-hypergraph atom)
  "Extracts ATOM, then each of its members that nothing else holds."
  (let ((out (if (cog-link? atom) (cog-outgoing-set atom) '())))
    (when (cog-extract! atom)
      (for-each (lambda (m) (when (null? (cog-incoming-set m)) (extract-hypergraph m))) out))))

;; Members by position, as car/cdr are for lists: (gar l) is l's first
;; member, (gdr l) its second, (gadr l) the first member of the second.
(define-public (gar link) "The first member of LINK." (cog-outgoing-atom link 0))
(define-public (gdr link) "The second member of LINK." (cog-outgoing-atom link 1))
;; gaar ... gdddr: their middle letters, read right to left, say which
;; member to take at each step, as in cadr.
(for-each
  (lambda (path)
    (let ((name (string->symbol (string-append "g" path "r"))))
      (module-define! (current-module) name
        (lambda (x) (string-fold-right (lambda (step x) ((if (char=? step #\a) gar gdr) x)) x path)))
      (module-export! (current-module) (list name))))
  '("aa" "ad" "da" "dd" "aaa" "aad" "ada" "add" "daa" "dad" "dda" "ddd"))

(define-public (alist . pairs)
  "Values for an atom's constructor: (Concept \"a\" (alist (cons key value) ...))."
  (cons 'alist pairs))

(define-public (cog-tv-mean tv) "The mean of TV." (cog-mean tv))
(define-public (cog-tv-confidence tv) "The confidence of TV." (cog-confidence tv))
(define-public (cog-tv-count tv) "The count of TV (0 for a simple truth value)." (cog-count tv))

(define-public (cog-ctv? x)
  "Whether X is a count truth value."
  (and (cog-tv? x) (eq? 'CountTruthValue (cog-type x))))

(define-public (tv-positive-count tv)
  "The positive count of an evidence-count truth value; 0 for any other
(atomweave has none: see cog-new-etv)."
  0)

(define-public (cog-number node)
  "The number a NumberNode names."
  (unless (and (cog-node? node) (cog-subtype? 'NumberNode (cog-type node)))
    (throw 'wrong-type-arg 'cog-number "expected a NumberNode, got ~a" (list node) #f))
  (exact->inexact (string->number (cog-name node))))

(define-public (cog-equal? a b)
  "Whether atoms A and B have the same content (type, and name or members),
in whatever atomspaces they are; their values are not compared."
  (let loop ((pairs (list (cons a b))))
    (or (null? pairs)
        (let ((x (caar pairs)) (y (cdar pairs)))
          (and (eq? (cog-type x) (cog-type y))
               (if (cog-node? x)
                   (and (string=? (cog-name x) (cog-name y)) (loop (cdr pairs)))
                   (and (= (cog-arity x) (cog-arity y))
                        (loop (append (map cons (cog-outgoing-set x) (cog-outgoing-set y)) (cdr pairs))))))))))

(define-public (cog-closed? atom)
  "Whether ATOM has no free variables (see cog-free-variables)."
  (null? (cog-free-variables atom)))

(define-public (cog-atom-less? a b)
  "An order of atoms, for sorting: by handle."
  (< (cog-handle a) (cog-handle b)))

(define-public (cog-value-type atom key)
  "The type of the value of ATOM at KEY."
  (cog-type (cog-value atom key)))

(define-public (cog-type->int type)
  "The number of TYPE in this process's type table."
  (or (list-index (lambda (t) (eq? t type)) (cog-get-types))
      (throw 'wrong-type-arg 'cog-type->int "not a type: ~a" (list type) #f)))

;; Read-modify-write of values, one at a time among Scheme threads.
(define value-update-lock (make-mutex))

(define (float-list atom key)
  (let ((v (cog-value atom key)))
    (if (and v (not (null? v)) (memq (cog-type v) '(FloatValue SimpleTruthValue CountTruthValue)))
        (cog-value->list v)
        '())))

(define-public (cog-inc-value! atom key count ref)
  "Adds COUNT to element REF of the FloatValue of ATOM at KEY (made, or
lengthened with zeros, as needed); returns ATOM."
  (with-mutex value-update-lock
    (let* ((old (float-list atom key))
           (old (append old (make-list (max 0 (- (+ ref 1) (length old))) 0))))
      (cog-set-value! atom key
        (apply FloatValue (map (lambda (x i) (if (= i ref) (+ x count) x)) old (iota (length old))))))))

(define-public (cog-update-value! atom key delta)
  "Adds DELTA (a FloatValue or a list of numbers) element by element to the
FloatValue of ATOM at KEY (made, or lengthened with zeros, as needed);
returns ATOM."
  (with-mutex value-update-lock
    (let* ((d (if (list? delta) delta (cog-value->list delta)))
           (old (float-list atom key))
           (n (max (length old) (length d)))
           (pad (lambda (l) (append l (make-list (- n (length l)) 0)))))
      (cog-set-value! atom key (apply FloatValue (map + (pad old) (pad d)))))))

(define-public (cog-outgoing-by-type atom type)
  "The members of ATOM whose type is TYPE (subtypes excluded)."
  (cog-filter type (cog-outgoing-set atom)))

(define-public (cog-incoming-size-by-type atom type . space)
  "How many links of TYPE hold ATOM, seen from the space given (by default
the current one)."
  (length (apply cog-incoming-by-type atom type space)))

(define-public (for-each-except exclude proc items)
  "Calls PROC on each of ITEMS that is not EXCLUDE (by eq?)."
  (for-each (lambda (x) (unless (eq? x exclude) (proc x))) items))

(define-public (cog-get-trunk atom)
  "Every link that holds ATOM, directly or through other links."
  (define seen? (make-once-predicate))
  (let loop ((todo (cog-incoming-set atom)) (found '()))
    (cond ((null? todo) (reverse found))
          ((seen? (car todo)) (loop (cdr todo) found))
          (else (loop (append (cog-incoming-set (car todo)) (cdr todo)) (cons (car todo) found))))))

(define-public (cog-pred-get-partner evaluation atom)
  "In (Evaluation P (List A B)), the other of A and B than ATOM."
  (cog-get-partner (car (cog-outgoing-by-type evaluation 'ListLink)) atom))

(define (chase-endpoints link-type endpoint-type anchor)
  ;; The atoms of ENDPOINT-TYPE in the links of LINK-TYPE that hold ANCHOR, link by link.
  (if (null? anchor)
      '()
      (map (lambda (l) (cog-outgoing-by-type l endpoint-type)) (cog-incoming-by-type anchor link-type))))

(define (check-anchor anchor anchor-type)
  (unless (or (null? anchor) (eq? anchor-type (cog-type anchor)))
    (throw 'wrong-atom-type 'cog-chase-link-chk
           (format #f "expected a ~a, got ~a" anchor-type anchor))))

(define-public (cog-map-chase-link link-type endpoint-type proc anchor)
  "Calls PROC on every atom of ENDPOINT-TYPE that a link of LINK-TYPE joins
to ANCHOR; a list per link of PROC's results."
  (map (lambda (ends) (map proc ends)) (chase-endpoints link-type endpoint-type anchor)))

(define-public (cog-par-chase-link link-type endpoint-type proc anchor)
  "cog-map-chase-link, with the links handled in parallel threads."
  (if (null? anchor)
      '()
      (par-map (lambda (l) (map proc (cog-outgoing-by-type l endpoint-type)))
               (cog-incoming-by-type anchor link-type))))

;; CHASE applied to ANCHOR, or to each anchor of a list (nested lists too).
(define (each-anchor chase anchor)
  (if (list? anchor) (map (lambda (a) (each-anchor chase a)) anchor) (chase anchor)))

(define-public (cog-map-chase-links link-type endpoint-type proc anchor)
  "cog-map-chase-link, where ANCHOR may also be a list of anchors."
  (each-anchor (lambda (a) (cog-map-chase-link link-type endpoint-type proc a)) anchor))

(define-public (cog-par-chase-links link-type endpoint-type proc anchor)
  "cog-par-chase-link, where ANCHOR may also be a list of anchors."
  (each-anchor (lambda (a) (cog-par-chase-link link-type endpoint-type proc a)) anchor))

(define-public (cog-map-chase-links-chk link-type endpoint-type proc anchor anchor-type)
  "cog-map-chase-links; an error if an anchor is not of ANCHOR-TYPE."
  (each-anchor (lambda (a) (check-anchor a anchor-type) (cog-map-chase-link link-type endpoint-type proc a)) anchor))

(define-public (cog-par-chase-links-chk link-type endpoint-type proc anchor anchor-type)
  "cog-par-chase-links; an error if an anchor is not of ANCHOR-TYPE."
  (each-anchor (lambda (a) (check-anchor a anchor-type) (cog-par-chase-link link-type endpoint-type proc a)) anchor))

(define-public (cog-chase-link-chk link-type endpoint-type anchor anchor-type)
  "cog-chase-link; an error if ANCHOR is not of ANCHOR-TYPE."
  (check-anchor anchor anchor-type)
  (cog-chase-link link-type endpoint-type anchor))

(define-public (cog-map-chase-link-dbg link-type endpoint-type link-msg end-msg proc anchor)
  "cog-map-chase-link that displays LINK-MSG once and END-MSG for each link
followed (each unless '())."
  (unless (null? link-msg) (display link-msg))
  (for-each (lambda (ends)
              (unless (null? end-msg) (display end-msg))
              (for-each proc ends))
            (chase-endpoints link-type endpoint-type anchor)))

(define-public (cog-map-apply-link link-type endpoint-type proc anchor)
  "Calls PROC on each link of LINK-TYPE holding ANCHOR, once per member of
ENDPOINT-TYPE it has."
  (for-each (lambda (l) (for-each (lambda (_) (proc l)) (cog-outgoing-by-type l endpoint-type)))
            (cog-incoming-by-type anchor link-type)))

(define-public (cog-get-pred inst pred-type)
  "The EvaluationLinks whose list holds INST and whose predicate is of PRED-TYPE."
  (append-map (lambda (lst) (cog-get-link 'EvaluationLink pred-type lst))
              (cog-incoming-by-type inst 'ListLink)))

(define-public (cog-get-reference atom)
  "The members of the ListLink that a ReferenceLink joins to ATOM ('() if none)."
  (let ((lists (cog-chase-link 'ReferenceLink 'ListLink atom)))
    (if (null? lists) '() (cog-outgoing-set (car lists)))))

(define-public (filter-hypergraph pred? atoms)
  "The nodes inside ATOMS (an atom or a list of atoms), at any depth, that
satisfy PRED?."
  (let loop ((todo (if (list? atoms) atoms (list atoms))) (found '()))
    (cond ((null? todo) (reverse found))
          ((cog-link? (car todo)) (loop (append (cog-outgoing-set (car todo)) (cdr todo)) found))
          ((pred? (car todo)) (loop (cdr todo) (cons (car todo) found)))
          (else (loop (cdr todo) found)))))

(define-public (cartesian-prod tuple)
  "Every combination taking one element from each list of TUPLE, as a
list of tuples; an element that is not a list stands for itself alone:
(cartesian-prod '((p q) a (x y))) is ((p a x) (q a x) (p a y) (q a y)),
and (cartesian-prod '(p q)), with no list to choose from, is (p q)."
  ;; HEAD joined to the tuple TAIL (or to the single element TAIL).
  (define (join head tail) (if (list? tail) (cons head tail) (list head tail)))
  ;; Each of HEADS (or the single HEADS) joined to TAIL.
  (define (join-all heads tail)
    (if (list? heads) (map (lambda (h) (join h tail)) heads) (join heads tail)))
  (cond ((not (pair? tuple)) tuple)
        ((null? (cdr tuple)) (car tuple))
        (else
         (let ((heads (car tuple)) (tails (cartesian-prod (cdr tuple))))
           (cond ((not (list? tails)) (join-all heads tails))
                 ((list? heads) (append-map (lambda (t) (join-all heads t)) tails))
                 (else (map (lambda (t) (join heads t)) tails)))))))

(define-public (cartesian-prod-list-only tuple)
  "Every list made of one element of each list of TUPLE, in order."
  (fold-right (lambda (choices tails)
                (append-map (lambda (c) (if (null? tails) (list (list c)) (map (lambda (t) (cons c t)) tails)))
                            choices))
              '()
              tuple))

(define (element-by-key better? items key)
  (if (null? items)
      '()
      (fold (lambda (x best) (if (better? (key x) (key best)) x best)) (car items) (cdr items))))

(define-public (min-element-by-key items key)
  "The element of ITEMS for which KEY is least ('() for no items)."
  (element-by-key < items key))

(define-public (max-element-by-key items key)
  "The element of ITEMS for which KEY is greatest ('() for no items)."
  (element-by-key > items key))

;; ----- sets of atoms: hashed by handle, compared by equal? -----

(define (atom-hash atom size) (hashv (cog-handle atom) size))
(define (atom-assoc atom alist) (assoc atom alist))
(define (atom-table) (make-hash-table))
(define (atom-ref table atom) (hashx-ref atom-hash atom-assoc table atom #f))
(define (atom-put! table atom) (hashx-set! atom-hash atom-assoc table atom #t))

(define-public (make-afunc-cache afunc)
  "AFUNC, remembering its result for each atom it was called with."
  (define cache (atom-table))
  (lambda (atom)
    (let ((hit (hashx-get-handle atom-hash atom-assoc cache atom)))
      (if hit
          (cdr hit)
          (let ((v (afunc atom)))
            (hashx-set! atom-hash atom-assoc cache atom v)
            v)))))

(define-public (make-aset-predicate atoms)
  "A predicate: is an atom one of ATOMS?"
  (define table (atom-table))
  (for-each (lambda (a) (atom-put! table a)) atoms)
  (lambda (atom) (atom-ref table atom)))

(define-public (make-once-predicate)
  "A predicate that is #f the first time it sees an atom and #t after."
  (define table (atom-table))
  (lambda (atom)
    (or (atom-ref table atom)
        (begin (atom-put! table atom) #f))))

(define-public (make-atom-set)
  "A set of atoms: called with an atom, adds it and says whether it was
there; called with #f, the atoms in it, as a list."
  (define table (atom-table))
  (lambda (atom)
    (if atom
        (or (atom-ref table atom) (begin (atom-put! table atom) #f))
        (hash-fold (lambda (k v acc) (cons k acc)) '() table))))

(define-public (remove-duplicate-atoms atoms)
  "ATOMS, each once."
  (define seen? (make-once-predicate))
  (remove seen? atoms))

(define-public (delete-dup-atoms atoms) "See remove-duplicate-atoms." (remove-duplicate-atoms atoms))

(define-public (keep-duplicate-atoms atoms)
  "ATOMS without those that appear once; each that remains once less often."
  (define seen? (make-once-predicate))
  (filter seen? atoms))

(define-public (atoms-subtract a b)
  "The atoms of A that are not in B."
  (remove (make-aset-predicate b) a))

(define-public (atoms-intersect a b)
  "The atoms of A that are also in B."
  (filter (make-aset-predicate b) a))

;; ----- atomspaces -----

(define-public (cog-as atom) "See cog-atomspace." (cog-atomspace atom))
(define-public (cog-extract atom) "See cog-extract!." (cog-extract! atom))
(define-public (cog-extract-recursive atom) "See cog-extract-recursive!." (cog-extract-recursive! atom))
(define-public (cog-remove atom) "See cog-extract!." (cog-extract! atom))
(define-public (clear) "Removes every atom from the current atomspace." (cog-atomspace-clear))
(define-public (cog-undefined-handle) "Obsolete: the empty list." '())

(define-public cog-initial-as (cog-atomspace))
(define-public my-as cog-initial-as)

;; The atomspaces pushed in this thread, and the one the last push made.
(define-public cog-atomspace-stack (make-fluid '()))
(define-public cog-atomspace-stack-top (make-fluid #f))

(define-public (cog-push-atomspace)
  "Makes a child of the current atomspace (or of the last one pushed) the
current one; returns the space it was made from."
  (let ((base (or (fluid-ref cog-atomspace-stack-top) (cog-atomspace))))
    (fluid-set! cog-atomspace-stack (cons base (fluid-ref cog-atomspace-stack)))
    (cog-set-atomspace! (cog-new-atomspace base))
    (fluid-set! cog-atomspace-stack-top (cog-atomspace))
    base))

(define-public (cog-pop-atomspace)
  "Empties the atomspace the last push made and makes the one it was made
from current again."
  (let ((stack (fluid-ref cog-atomspace-stack)))
    (when (null? stack)
      (throw 'badpop "cog-pop-atomspace: more pops than pushes"))
    (cog-set-atomspace! (fluid-ref cog-atomspace-stack-top))
    (cog-atomspace-clear)
    (cog-set-atomspace! (car stack))
    (fluid-set! cog-atomspace-stack (cdr stack))
    (fluid-set! cog-atomspace-stack-top (if (null? (cdr stack)) #f (car stack)))
    *unspecified*))

(define-public (cog-cp space atoms)
  "Copies ATOMS (with their values) into SPACE; the copies."
  (map (lambda (a) (cog-new-atom a space)) atoms))

(define-public (cog-cp-all space)
  "Copies every atom of the current atomspace into SPACE; the copies of the roots."
  (cog-cp space (cog-get-all-roots)))

(define-public (cog-get-all-subtypes type)
  "Every subtype of TYPE, direct or not."
  (let loop ((todo (cog-get-subtypes type)) (found '()))
    (cond ((null? todo) (reverse found))
          ((memq (car todo) found) (loop (cdr todo) found))
          (else (loop (append (cog-get-subtypes (car todo)) (cdr todo)) (cons (car todo) found))))))

(define-public (cog-type? x)
  "Whether X names an atom or value type."
  (and (symbol? x) (memq x (cog-get-types)) #t))

;; ----- random names -----

(define random-state (make-fluid #f))

(define-public (random-string length)
  "A string of LENGTH random letters and digits, after a time stamp."
  (define chars "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
  (unless (fluid-ref random-state)
    (fluid-set! random-state (random-state-from-platform)))
  (string-append
    (number->string (get-internal-real-time)) "-"
    (list->string (map (lambda (_) (string-ref chars (random (string-length chars) (fluid-ref random-state))))
                       (iota length)))))

(define-public (random-node-name type length prefix)
  "PREFIX and a random string of LENGTH, naming no node of TYPE yet."
  (let loop ()
    (let ((name (string-append prefix (random-string length))))
      (if (null? (cog-node type name)) name (loop)))))

(define-public (random-node type length prefix)
  "A new node of TYPE named by random-node-name."
  (cog-new-node type (random-node-name type length prefix)))

(define-public (uniquely-named-variable)
  "A new VariableNode with a name no variable has yet."
  (random-node 'VariableNode 24 "$"))

(define-public (choose-var-name)
  "Deprecated: a name no VariableNode has yet."
  (random-node-name 'VariableNode 24 "$"))

(define-public (random-variable)
  "A new VariableNode with a random name."
  (random-node 'VariableNode 36 "$"))

;; ----- universal instantiation of (ForAll (VariableList ...) body) -----

(define-public (get-variables for-all) "The variables of FOR-ALL." (cog-outgoing-set (gar for-all)))
(define-public (get-body for-all) "The body of FOR-ALL." (gdr for-all))

(define-public (get-bindings for-all args)
  "The variables of FOR-ALL paired with ARGS."
  (map cons (get-variables for-all) args))

(define-public (substitute-var bindings body)
  "BODY with each variable of BINDINGS (an alist) replaced by its value;
variable lists inside become empty."
  (cond ((cog-subtype? 'VariableList (cog-type body)) (VariableList))
        ((cog-link? body)
         (apply cog-new-link (cog-type body) (map (lambda (m) (substitute-var bindings m)) (cog-outgoing-set body))))
        ((assoc body bindings) => cdr)
        (else body)))

(define-public (universal-instantiate for-all args)
  "The body of FOR-ALL with its variables bound to ARGS."
  (substitute-var (get-bindings for-all args) (get-body for-all)))

;; ----- files -----

(define-public (list-files dir)
  "The names of the regular files in DIR, sorted."
  (let ((d (opendir dir)))
    (let loop ((names '()))
      (let ((e (readdir d)))
        (if (eof-object? e)
            (begin (closedir d) (sort names string<?))
            (loop (if (eq? 'regular (stat:type (stat (string-append dir "/" e)))) (cons e names) names)))))))

(define-public (exec-scm-from-port port)
  "Evaluates every expression read from PORT, in order."
  (let loop ()
    (let ((x (read port)))
      (unless (eof-object? x)
        (primitive-eval x)
        (loop)))))

(define-public (exec-scm-from-cmd cmd)
  "Evaluates every expression the shell command CMD prints."
  (let ((port ((@ (ice-9 popen) open-input-pipe) cmd)))
    (exec-scm-from-port port)
    ((@ (ice-9 popen) close-pipe) port)))

(define-public (load-scm-from-file file)
  "Evaluates every expression of FILE, in order."
  (call-with-input-file file exec-scm-from-port))

(define-public (prt-atom-list port atoms)
  "Prints each of ATOMS to PORT, in the form they are read back from."
  (for-each (lambda (a) (display a port)) atoms))

(define-public (export-atoms atoms file)
  "Writes ATOMS to FILE, in the form they are read back from."
  (call-with-output-file file (lambda (port) (prt-atom-list port atoms))))

(define-public (export-all-atoms file)
  "Writes every atom of the current atomspace to FILE (one copy of each
content, where the space sees two: the one its lookups find)."
  (if (%atomweave-may-see-a-content-twice?)
      (let ((text (%atomweave-one-copy-roots)))
        (call-with-output-file file (lambda (port) (display text port))))
      (export-atoms (cog-get-all-roots) file)))

;; ----- truth values that atomweave does not have -----
;; Indefinite, evidence-count, fuzzy and probabilistic truth values: each
;; constructor raises an error that names the type (cog-new-value does).

(define-public (cog-new-itv lower upper confidence) (cog-new-value 'IndefiniteTruthValue lower upper confidence))
(define-public (cog-new-etv positive total) (cog-new-value 'EvidenceCountTruthValue positive total))
(define-public (cog-new-ftv mean confidence) (cog-new-value 'FuzzyTruthValue mean confidence))
(define-public (cog-new-ptv mean confidence count) (cog-new-value 'ProbabilisticTruthValue mean confidence count))
(define-public itv cog-new-itv)
(define-public etv cog-new-etv)
(define-public ftv cog-new-ftv)
(define-public ptv cog-new-ptv)

(define-public (TypeSet . members)
  "A TypeIntersectionLink of MEMBERS (upstream's old name)."
  (apply cog-new-link 'TypeIntersectionLink members))
(define-public TypeSetLink TypeSet)

;; ----- loggers (upstream's cog-logger-*-of-logger; (opencog logger) has
;; the forms that take the default logger) -----
;; A logger appends "[time] [LEVEL] [component] message" lines to its file
;; (and to stdout when asked), writing each before the call returns.

(define-record-type <cog-logger>
  (make-cog-logger filename level component stdout? sync? timestamp?)
  cog-logger?
  (filename logger-filename set-logger-filename!)
  (level logger-level set-logger-level!)
  (component logger-component set-logger-component!)
  (stdout? logger-stdout? set-logger-stdout!)
  (sync? logger-sync? set-logger-sync!)
  (timestamp? logger-timestamp? set-logger-timestamp!))
(export cog-logger?)

;; Levels, least verbose first; a logger writes the messages of its level
;; and those before it.
(define logger-levels '("NONE" "ERROR" "WARN" "INFO" "DEBUG" "FINE"))

(define (level-rank name)
  (or (list-index (lambda (l) (string-ci=? l name)) logger-levels)
      (throw 'wrong-type-arg 'cog-logger-set-level-of-logger!
             "not a logging level: ~s (fine, debug, info, warn, error or none)" (list name) #f)))

(define logger-lock (make-mutex))

(define-public (cog-new-logger)
  "A new logger: to opencog.log, at level INFO, with time stamps."
  (make-cog-logger "opencog.log" "INFO" "" #f #t #t))

(define default-logger (cog-new-logger))
(define-public (cog-default-logger) "The logger the (opencog logger) calls use by default." default-logger)

(define-syntax-rule (define-logger-setting name getter setter convert)
  (define-public (name logger value)
    (let ((old (getter logger)))
      (setter logger (convert value))
      old)))

(define-public (cog-logger-get-filename-of-logger logger) "LOGGER's file." (logger-filename logger))
(define-public (cog-logger-get-level-of-logger logger) "LOGGER's level, e.g. \"INFO\"." (logger-level logger))
(define-public (cog-logger-get-component-of-logger logger) "LOGGER's component name." (logger-component logger))
(define-logger-setting cog-logger-set-filename-of-logger! logger-filename set-logger-filename! identity)
(define-logger-setting cog-logger-set-level-of-logger! logger-level set-logger-level!
  (lambda (l) (list-ref logger-levels (level-rank l))))
(define-logger-setting cog-logger-set-component-of-logger! logger-component set-logger-component! identity)
(define-logger-setting cog-logger-set-stdout-of-logger! logger-stdout? set-logger-stdout! ->bool)
(define-logger-setting cog-logger-set-sync-of-logger! logger-sync? set-logger-sync! ->bool)
(define-logger-setting cog-logger-set-timestamp-of-logger! logger-timestamp? set-logger-timestamp! ->bool)

(define (->bool x) (and x #t))

(define (logger-enabled? logger level)
  (<= (level-rank level) (level-rank (logger-level logger))))

(define (logger-write logger level msg)
  (when (logger-enabled? logger level)
    (let ((line (string-append
                  (if (logger-timestamp? logger) (strftime "[%Y-%m-%d %H:%M:%S] " (localtime (current-time))) "")
                  "[" level "] "
                  (if (string-null? (logger-component logger)) "" (string-append "[" (logger-component logger) "] "))
                  msg "\n")))
      (with-mutex logger-lock
        (let ((port (open-file (logger-filename logger) "a")))
          (display line port)
          (close-port port))
        (when (logger-stdout? logger) (display line) (force-output)))))
  #t)

(define-syntax-rule (define-logger-level level enabled write)
  (begin
    (define-public (enabled logger) (logger-enabled? logger level))
    (define-public (write logger msg) (logger-write logger level msg))))

(define-logger-level "ERROR" cog-logger-error-enabled-of-logger? cog-logger-error-of-logger)
(define-logger-level "WARN" cog-logger-warn-enabled-of-logger? cog-logger-warn-of-logger)
(define-logger-level "INFO" cog-logger-info-enabled-of-logger? cog-logger-info-of-logger)
(define-logger-level "DEBUG" cog-logger-debug-enabled-of-logger? cog-logger-debug-of-logger)
(define-logger-level "FINE" cog-logger-fine-enabled-of-logger? cog-logger-fine-of-logger)

(define-public (cog-logger-flush-of-logger logger)
  "Nothing is pending: every message is written before its call returns."
  #t)

;; ----- tracing to a file (upstream's debug-trace) -----

(define trace-port #f)
(define trace-count 0)
(define trace-start 0)

(define (trace-out)
  (or trace-port (throw 'misc-error 'trace-msg "no trace file: call (init-trace FILE) first" '() #f)))

(define-public (init-trace file)
  "Traces go to FILE (replaced) from now on."
  (when trace-port (close-port trace-port))
  (set! trace-port (open-file file "w")))

(define-public (start-trace msg)
  "Writes MSG to the trace file and starts its clock and count again."
  (set! trace-start (current-time))
  (set! trace-count 0)
  (trace-msg msg))

(define-public (trace-msg msg)
  "Writes MSG to the trace file."
  (display msg (trace-out))
  (force-output (trace-out)))

(define-public (trace-elapsed)
  "Writes the seconds since the clock last started, and starts it again."
  (trace-msg (format #f "Elapsed secs ~a\n" (- (current-time) trace-start)))
  (set! trace-start (current-time)))

(define-public (trace-msg-cnt msg)
  "Writes MSG and how many messages this count has had; every 10,000, the
elapsed time too."
  (set! trace-count (+ trace-count 1))
  (trace-msg (format #f "~a~a\n" msg trace-count))
  (when (zero? (modulo trace-count 10000)) (trace-elapsed)))

(define server-mode #f)

(define-public (cog-set-server-mode! on)
  "Upstream prints truth values at full precision in server mode; atomweave
always does, so this only records ON. Returns the previous setting."
  (let ((old server-mode))
    (set! server-mode (and on #t))
    old))

;; ----- upstream's random generator: one state for every thread, apart
;; from Guile's *random-state*, so a seed makes a run repeatable -----

(define randgen-state (seed->random-state 0))
(define randgen-lock (make-mutex))

(define-public (cog-randgen-set-seed! seed)
  "Seeds the random generator with SEED (an integer)."
  (with-mutex randgen-lock (set! randgen-state (seed->random-state seed)))
  *unspecified*)

(define-public (cog-randgen-randint n)
  "A random integer from 0 to N, N excluded."
  (with-mutex randgen-lock (random n randgen-state)))

(define-public (cog-randgen-randfloat)
  "A random number from 0 to 1."
  (with-mutex randgen-lock (random:uniform randgen-state)))

;; ----- attention values, as upstream's (opencog attention) has them -----
;; An attention value is (av sti lti vlti), kept under the attention-value
;; key; reading one never adds the key to the space.

(define-public (av sti lti vlti)
  "An attention value: short-, long- and very-long-term importance."
  (AttentionValue (exact->inexact sti) (exact->inexact lti) (exact->inexact vlti)))

(define-public cog-new-av av)

(define-public (cog-av? x)
  "Whether X is an attention value."
  (and (cog-value? x) (eq? (cog-type x) 'AttentionValue)))

(define (attention-key)
  (cog-node 'PredicateNode "*-AttentionValueKey-*"))

(define-public (cog-av atom)
  "The attention value of ATOM; (av 0 0 0) when it has none."
  (let* ((key (attention-key))
         (v (and (cog-atom? key) (cog-value atom key))))
    (if (and v (not (null? v)))
        (apply av (cog-value->list v))
        (av 0 0 0))))

(define-public (cog-set-av! atom a)
  "Sets the attention value of ATOM to A, made by av; returns ATOM."
  (unless (cog-av? a)
    (error "cog-set-av!: expected an attention value, (av sti lti vlti), got" a))
  (cog-set-value! atom (PredicateNode "*-AttentionValueKey-*") a)
  atom)

(define (av-part atom i) (list-ref (cog-value->list (cog-av atom)) i))
(define-public (cog-av-sti atom) "The short-term importance of ATOM." (av-part atom 0))
(define-public (cog-av-lti atom) "The long-term importance of ATOM." (av-part atom 1))
(define-public (cog-av-vlti atom) "The very-long-term importance of ATOM." (av-part atom 2))

(define-public (cog-av->alist a)
  "An attention value as an alist: ((sti . S) (lti . L) (vlti . V))."
  (map cons '(sti lti vlti) (cog-value->list a)))

;; ----- truth-value merging (upstream's cog-tv-merge and kin) -----

(define-public (cog-tv-merge a b)
  "Truth values A and B merged by PLN's revision rule (upstream's default):
counts add, less a fifth of the smaller; the mean is weighed by count.
Both must be simple truth values."
  (define (simple? tv) (and (cog-tv? tv) (eq? 'SimpleTruthValue (cog-type tv))))
  (unless (and (simple? a) (simple? b))
    (error "cog-tv-merge: PLN revision merges simple truth values, got" a b))
  (let* ((k 800)
         (cf (min (cog-tv-confidence a) 0.9999998))
         (n1 (/ (* k cf) (- 1 cf)))
         (n2 (cog-tv-count b))
         (n (- (+ n1 n2) (* 0.2 (min n1 n2)))))
    (if (zero? (+ n1 n2))
        a
        (stv (/ (+ (* (cog-tv-mean a) n1) (* (cog-tv-mean b) n2)) (+ n1 n2))
             (/ n (+ n k))))))

(define-public (cog-tv-merge-hi-conf a b)
  "Of truth values A and B, the one of higher confidence (A on a tie)."
  (unless (and (cog-tv? a) (cog-tv? b))
    (error "cog-tv-merge-hi-conf: expected two truth values, got" a b))
  (if (> (cog-tv-confidence b) (cog-tv-confidence a)) b a))

(define-public (cog-merge-tv! atom tv)
  "Sets ATOM's truth value to its own merged with TV (cog-tv-merge)."
  (cog-set-tv! atom (cog-tv-merge (cog-tv atom) tv)))

(define-public (cog-merge-hi-conf-tv! atom tv)
  "Sets ATOM's truth value to its own or TV, whichever is more confident."
  (cog-set-tv! atom (cog-tv-merge-hi-conf (cog-tv atom) tv)))

;; ----- one element of a vector value -----

(define-public (cog-set-value-ref! atom key val ref)
  "Sets element REF (from 0) of the vector value at KEY on ATOM to VAL,
padding a shorter vector (with 0, \"\" or VAL itself); nothing happens if
ATOM has no value at KEY. Returns ATOM."
  (let ((v (cog-value atom key)))
    (when (and v (not (null? v)))
      (let* ((type (cog-type v))
             (old (cog-value->list v))
             (pad (case type ((FloatValue) 0) ((StringValue) "") (else val)))
             (new (append old (make-list (max 0 (- (+ ref 1) (length old))) pad))))
        (list-set! new ref val)
        (cog-set-value! atom key (apply cog-new-value type new))))
    atom))

;; ----- UUIDs: a process-wide table of integers for atoms -----

(define uuid-lock (make-mutex))
(define uuid->atom (make-hash-table))
(define handle->uuid (make-hash-table))
(define next-uuid 1)

(define-public (cog-assign-uuid atom . uuid)
  "The UUID (an integer) of ATOM: the one it has, else UUID if given, else a
new one. Remembered until removed (cog-unassign-uuid, cog-remove-uuid)."
  (with-mutex uuid-lock
    (let ((known (hashv-ref handle->uuid (cog-handle atom))))
      (cond
        ((and known (null? uuid)) known)
        (else
          (let ((u (if (null? uuid) next-uuid (car uuid))))
            (unless (and (integer? u) (>= u 0))
              (error "cog-assign-uuid: a UUID is a non-negative integer, got" u))
            (when known (hashv-remove! uuid->atom known))
            (hashv-set! uuid->atom u atom)
            (hashv-set! handle->uuid (cog-handle atom) u)
            (set! next-uuid (max next-uuid (+ u 1)))
            u))))))

(define-public (cog-add-uuid atom uuid)
  "Gives ATOM the UUID UUID (cog-assign-uuid with the UUID given)."
  (cog-assign-uuid atom uuid))

(define-public (cog-lookup-uuid uuid)
  "The atom of UUID, or '() if none has it."
  (with-mutex uuid-lock (or (hashv-ref uuid->atom uuid) '())))

(define-public (cog-remove-uuid uuid)
  "Forgets UUID (and its atom's association)."
  (with-mutex uuid-lock
    (let ((atom (hashv-ref uuid->atom uuid)))
      (when atom (hashv-remove! handle->uuid (cog-handle atom)))
      (hashv-remove! uuid->atom uuid)
      #t)))

(define-public (cog-unassign-uuid atom)
  "Forgets ATOM's UUID."
  (with-mutex uuid-lock
    (let ((u (hashv-ref handle->uuid (cog-handle atom))))
      (when u (hashv-remove! uuid->atom u))
      (hashv-remove! handle->uuid (cog-handle atom))
      #t)))

;; ----- type specifications -----
;; cog-value-is-type? is a primitive (deep types too: Signature,
;; DefinedType); cog-type-match? compares simple specifications.

(define (type-of-spec-accepts? spec type)
  "Whether type specification SPEC (Type, TypeInh, TypeCoInh, TypeChoice)
accepts atoms or values of TYPE."
  (case (cog-type spec)
    ((TypeNode) (eq? (string->symbol (cog-name spec)) type))
    ((TypeInhNode) (cog-subtype? (string->symbol (cog-name spec)) type))
    ((TypeCoInhNode) (cog-subtype? type (string->symbol (cog-name spec))))
    ((TypeChoice) (any (lambda (s) (type-of-spec-accepts? s type)) (cog-outgoing-set spec)))
    (else (error "not supported by atomweave: type specifications beyond Type, TypeInh, TypeCoInh and TypeChoice (signatures, deep types), got" spec))))

(define-public (cog-type-match? left right)
  "Whether LEFT, a type specification, is at least as broad as RIGHT, a
type specification or a value (see cog-value-is-type?)."
  (if (and (cog-atom? right) (memq (cog-type right) '(TypeNode TypeInhNode TypeCoInhNode TypeChoice)))
      (case (cog-type right)
        ((TypeChoice) (every (lambda (r) (cog-type-match? left r)) (cog-outgoing-set right)))
        ((TypeNode) (type-of-spec-accepts? left (string->symbol (cog-name right))))
        (else (equal? left right)))
      (cog-value-is-type? left right)))

;; ----- modules loaded by the names they had in upstream's older releases -----

(define-public (%atomweave-old-module-name old new)
  "Says, on the error port, that a program loads module OLD by a name
upstream has replaced with NEW. A module loads once, so this is said once."
  (format (current-error-port) "atomweave: ~a is an old name: upstream replaced it with ~a; the program runs, but say that instead~%" old new))

;; ----- names upstream exports that atomweave does not provide -----

(define (not-supported name why)
  (lambda args
    (error (string-append name ": not supported by atomweave: " why))))

(define-public cog-type-compose
  (not-supported "cog-type-compose" "type composition (the deep type system); cog-value-is-type? and cog-type-match? check simple type specifications"))
(define-public cog-add-atomspace
  (not-supported "cog-add-atomspace" "an AtomSpace is not held inside another as an atom; make a child space (cog-new-atomspace BASE) or keep a reference in Scheme"))
(define-public cog-new-ast
  (not-supported "cog-new-ast" "foreign abstract syntax trees are made by their constructors here: (SexprAst \"(a b)\"), (DatalogAst \"f(x).\")"))
(define-public opencog-extension
  (not-supported "opencog-extension" "atomweave loads no C++ extension libraries; its modules are Scheme over one native extension"))
