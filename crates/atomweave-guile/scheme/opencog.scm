;;; (opencog): atomweave's AtomSpace, with upstream OpenCog's Scheme API.
;;;
;;; The cog-* functions, a constructor for every atom and value type (long
;;; and short names: ConceptNode, Concept, FloatValue), truth values (stv,
;;; ctv), atomspaces, queries (cog-execute!) and the StorageNode calls. All
;;; of them are defined by the extension this module loads.

(define-module (opencog)
  #:use-module (srfi srfi-1))


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

(define-public (count-all)
  "How many atoms the current atomspace holds."
  (length (cog-get-atoms 'Atom #t)))

(define-public (cog-map-type proc type)
  "Calls PROC on every atom of TYPE (subtypes excluded) until it returns
something other than #f; that value, or #f."
  (let loop ((atoms (cog-get-atoms type)))
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
  "The links of LINK-TYPE holding ANCHOR and an atom of ENDPOINT-TYPE."
  (filter (lambda (l)
            (any (lambda (m) (and (not (equal? m anchor)) (eq? endpoint-type (cog-type m))))
                 (cog-outgoing-set l)))
          (cog-incoming-by-type anchor link-type)))

(define-public (cog-chase-link link-type endpoint-type anchor)
  "The atoms of ENDPOINT-TYPE that links of LINK-TYPE join to ANCHOR."
  (delete-duplicates
    (append-map (lambda (l)
                  (filter (lambda (m) (and (not (equal? m anchor)) (eq? endpoint-type (cog-type m))))
                          (cog-outgoing-set l)))
                (cog-incoming-by-type anchor link-type))))

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
