;;; (atomweave shell): evaluation for programs that embed Guile (the
;;; server's scm shell, bench -g). Every procedure catches every exception
;;; and returns (#t . result) or (#f . "error message"), so no exception
;;; unwinds into the caller's (Rust) frames.

(define-module (atomweave shell)
  #:use-module (opencog)
  #:use-module (ice-9 eval-string)
  #:use-module (system base compile)
  #:export (shell-eval shell-run shell-value shell-memoize shell-compile shell-call
            shell-apply shell-resolve shell-error-text shell-interrupt
            shell-open-file shell-load-form shell-own-rest shell-write shell-in-body shell-escaped))

(define user (resolve-module '(guile-user)))

(define (error-text key args)
  (let ((text (call-with-output-string
                (lambda (port) (print-exception port #f key args)))))
    (string-trim-right text #\newline)))

(define (on-error e)
  (cons #f (error-text (exception-kind e) (exception-args e))))

;; Inside a command's body: where an embedder's watchdog may throw. Every
;; primitive turns it off while it runs (a scm: callback's way in and out,
;; before and after `guarded` stands, must not throw over Rust's frames).
(define in-body (make-fluid #f))
(define shell-in-body in-body)

;; A jump out of a command by other means than an exception (abort-to-prompt
;; to the caller's prompt, an escape continuation) would skip the Rust frames
;; that called in, and a continuation captured in one command and called
;; after it would run them again: both corrupt the process. The barrier
;; refuses the second; the fence turns the first into this error.
(define fence (make-prompt-tag "atomweave-fence"))
(define escaped
  (cons #f "a non-local exit (abort-to-prompt, or an escape continuation) to a place outside the Scheme that atomweave called would skip atomweave's own frames: it was stopped at the call"))
(define shell-escaped escaped)

;; with-exception-handler, unwinding: what catch does, for less; inside the
;; barrier and the fence.
(define-syntax-rule (guarded body ...)
  (with-continuation-barrier
    (lambda ()
      (call-with-prompt fence
        (lambda ()
          (let ((done #f))
            (dynamic-wind
              (lambda () #f)
              (lambda ()
                (let ((r (with-exception-handler on-error
                           (lambda () (with-fluid* in-body #t (lambda () body ...)))
                           #:unwind? #t)))
                  (set! done #t)
                  r))
              (lambda () (unless done (abort-to-prompt fence))))))
        (lambda (k) escaped)))))

;; Rust's plain-call evaluator (plain_eval.rs) caches what symbols of the
;; user module name; any new binding or use there makes the caches stale.
(module-observe user (lambda (m) (%atomweave-module-changed)))

(define (procedure-named sym)
  "The procedure SYM names in the user module, or #f (unbound, a macro, not
a procedure)."
  (let ((v (module-variable user sym)))
    (and v (variable-bound? v)
         (let ((x (variable-ref v)))
           (and (procedure? x) x)))))

(define (plain? form)
  "Whether FORM is a constant, a bound variable, a quoted datum, or a call of
a bound procedure on plain arguments: what evaluates the same without macro
expansion. (Most shell commands are; expansion is the costly part of eval.)"
  (cond ((symbol? form)
         (let ((v (module-variable user form)))
           (and v (variable-bound? v) (not (macro? (variable-ref v))))))
        ((pair? form)
         (let ((head (car form)))
           (cond ((eq? head 'quote)
                  (and (pair? (cdr form)) (null? (cddr form))
                       (macro? (module-ref user 'quote))))
                 ((and (symbol? head) (procedure-named head))
                  (let loop ((args (cdr form)))
                    (cond ((null? args) #t)
                          ((pair? args) (and (plain? (car args)) (loop (cdr args))))
                          (else #f))))
                 (else #f))))
        (else (or (number? form) (string? form) (boolean? form)))))

(define (plain-eval form)
  (cond ((symbol? form) (module-ref user form))
        ((pair? form)
         (if (eq? (car form) 'quote)
             (cadr form)
             (let ((f (procedure-named (car form)))
                   (args (cdr form)))
               ;; Short calls without building an argument list.
               (cond ((null? args) (f))
                     ((null? (cdr args)) (f (plain-eval (car args))))
                     ((null? (cddr args)) (f (plain-eval (car args)) (plain-eval (cadr args))))
                     ((null? (cdddr args))
                      (f (plain-eval (car args)) (plain-eval (cadr args)) (plain-eval (caddr args))))
                     (else (apply f (map plain-eval args)))))))
        (else form)))

(define (eval-text text)
  "Evaluates every expression of TEXT in the user module (current while
they run, as eval makes it); the last one's values, as a list. TEXT may
come already read: a list of expressions."
  (let ((forms (if (string? text) (%atomweave-read text) text)))
    (if forms
        (let ((run (lambda ()
                     (let loop ((forms forms) (vals '()))
                       (if (null? forms)
                           vals
                           (loop (cdr forms)
                                 (let ((form (car forms)))
                                   (call-with-values
                                     (if (plain? form)
                                         (lambda () (plain-eval form))
                                         (lambda () (eval form user)))
                                     list))))))))
          ;; The excursion costs as much as a small command: only when needed.
          (if (eq? (current-module) user)
              (run)
              (save-module-excursion (lambda () (set-current-module user) (run)))))
        (call-with-values (lambda () (eval-string text #:module user)) list))))

;; What a REPL shows: the output, then each value (atoms print with their
;; own newline).
(define (shell-eval text)
  (guarded
    (let* ((vals '())
           (out (with-output-to-string
                  (lambda () (with-error-to-port (current-output-port)
                               (lambda () (set! vals (eval-text text))))))))
      (cons #t
            (string-append
              out
              (apply string-append
                     (map (lambda (v)
                            (let ((s (object->string v)))
                              (if (string-suffix? "\n" s) s (string-append s "\n"))))
                          (filter (lambda (v) (not (unspecified? v))) vals))))))))

(define (shell-run text)
  (guarded (eval-text text) '(#t . "")))

(define (shell-value text)
  (guarded (let ((vals (eval-text text)))
             (cons #t (if (pair? vals) (car vals) *unspecified*)))))

(define (read-one text)
  (call-with-input-string text read))

(define (shell-memoize text)
  (guarded (cons #t (eval (read-one text) user))))

(define (shell-compile text)
  (guarded (cons #t (compile (read-one text) #:env user #:to 'value))))

;; For Rust's plain-call evaluator: the variable SYM names in the user module if it is
;; bound (or #f), and the text of a caught throw.
(define (shell-resolve sym)
  (guarded (cons #t (let ((v (module-variable user sym)))
                      (and v (variable-bound? v) v)))))

;; X as `write` prints it (a record's printer is user code).
(define (shell-write x)
  (guarded (cons #t (object->string x))))

(define (shell-error-text key args)
  (guarded (cons #t (error-text key args))))

(define (shell-call proc arg)
  (guarded (proc arg) '(#t . "")))

(define (shell-apply name args)
  "Applies the procedure the expression NAME gives in the user module (a
grounded procedure's name after scm:) to ARGS; its value."
  (guarded (cons #t (apply (eval-string name #:module user) args))))

;; What an embedder's watchdog runs in a thread whose evaluation it stops
;; (interrupt.rs): throws if that evaluation is still being stopped, and
;; only in a command's body: a mark that arrives while the error is turned
;; into text, or on the way out, would throw past every handler.
(define (shell-interrupt)
  (when (fluid-ref in-body)
    ;; Off while it may throw: a second mark that runs while the throw
    ;; looks for its handler would throw from inside that search, past the
    ;; handler. Left off if it threw: the body is being left.
    (fluid-set! in-body #f)
    (%atomweave-interrupt-check)
    (fluid-set! in-body #t)))

;; For loaders of files that mix Scheme with data (load.rs): the file, and
;; the forms at a place in it, read there and evaluated in the user module.
;; The port has the file's name, so the forms' source locations, errors and
;; a relative `load` in them are the file's, as under `guile -l`.
(define (shell-open-file path)
  (guarded (cons #t (open-input-file path #:encoding "UTF-8"))))

;; Files whose Scheme defined a procedure named like an atom type: from
;; there on, what reads as data may be a call of it, so Guile reads it all.
(define scheme-owns-rest (make-object-property))

(define (defined-name form)
  "The name a top-level definition FORM binds, or #f."
  (and (pair? form) (memq (car form) '(define define-public define*)) (pair? (cdr form))
       (let loop ((target (cadr form)))
         (cond ((symbol? target) target)
               ((pair? target) (loop (car target)))
               (else #f)))))

(define (names-data? name)
  "Whether NAME is, or could be declared as, an atom type's constructor."
  (and name
       (let ((s (symbol->string name)))
         (or (%atomweave-data-head? name) (string-suffix? "Node" s) (string-suffix? "Link" s)))))

;; For a loader whose reader keeps stopping at the first form Guile hands
;; back (data that uses the file's variables): Guile reads the rest.
(define (shell-own-rest port)
  (guarded (set! (scheme-owns-rest port) #t) '(#t . #t)))

;; What `read` gave when it raised instead.
(define unreadable (list 'unreadable))

(define (exit-status args)
  "The process status of Guile's (exit ARGS ...): 0 for none or #t, 1 for
#f, an exact integer's low eight bits (as the system keeps), else 1."
  (cond ((null? args) 0)
        ((eq? (car args) #t) 0)
        ((exact-integer? (car args)) (logand (car args) 255))
        (else 1)))

(define (shell-load-form port place)
  "PLACE is (offset line . column), line and column from 1. Reads the form
there and evaluates it, then the forms after it up to the next that is data
(an atom, or a value set on one), which is left to the caller's reader.
Returns (N . NEXT): how many forms it evaluated and that one's place (#f at
the end); or, when a form fails, (N PLACE . MESSAGE): the forms evaluated
before it, its place and what went wrong."
  (guarded
    (seek port (car place) SEEK_SET)
    (set-port-line! port (- (cadr place) 1))
    (set-port-column! port (- (cddr place) 1))
    (let loop ((n 0))
      (let* ((here (cons* (ftell port) (+ 1 (port-line port)) (+ 1 (port-column port))))
             (form (catch #t (lambda () (read port)) (lambda args (cons unreadable args))))
             ;; Where the form itself starts, past the blanks before it.
             (at (let ((line (and (pair? form) (source-property form 'line))))
                   (if line
                       (cons* (car here) (+ 1 line) (+ 1 (source-property form 'column)))
                       here)))
             (failed (lambda (key . args)
                       (when (and (eq? key 'quit) (%atomweave-exit-on-quit?))
                         (flush-all-ports)
                         (primitive-exit (exit-status args)))
                       (cons #t (cons* n at (error-text key args))))))
        (cond ((and (pair? form) (eq? (car form) unreadable)) (apply failed (cdr form)))
              ((eof-object? form) (cons #t (cons n #f)))
              ((and (> n 0) (not (scheme-owns-rest port)) (pair? form) (%atomweave-data-head? (car form)))
               (cons #t (cons n here)))
              (else
               (when (names-data? (defined-name form))
                 (set! (scheme-owns-rest port) #t))
               (let ((ok (catch #t
                           (lambda () (if (plain? form) (plain-eval form) (eval form user)) #t)
                           (lambda args (apply failed args)))))
                 (if (eq? ok #t) (loop (+ n 1)) ok))))))))
