;;; (atomweave shell): evaluation for programs that embed Guile (the
;;; server's scm shell, bench -g). Every procedure catches every exception
;;; and returns (#t . result) or (#f . "error message"), so no exception
;;; unwinds into the caller's (Rust) frames.

(define-module (atomweave shell)
  #:use-module (opencog)
  #:use-module (ice-9 eval-string)
  #:use-module (system base compile)
  #:export (shell-eval shell-run shell-memoize shell-compile shell-call))

(define user (resolve-module '(guile-user)))

(define (error-text key args)
  (let ((text (call-with-output-string
                (lambda (port) (print-exception port #f key args)))))
    (string-trim-right text #\newline)))

(define-syntax-rule (guarded body ...)
  (catch #t
    (lambda () body ...)
    (lambda (key . args) (cons #f (error-text key args)))))

;; What a REPL shows: the output, then each value (atoms print with their
;; own newline).
(define (shell-eval text)
  (guarded
    (let* ((values-of (lambda () (call-with-values (lambda () (eval-string text #:module user)) list)))
           (vals '())
           (out (with-output-to-string
                  (lambda () (with-error-to-port (current-output-port)
                               (lambda () (set! vals (values-of))))))))
      (cons #t
            (string-append
              out
              (apply string-append
                     (map (lambda (v)
                            (let ((s (object->string v)))
                              (if (string-suffix? "\n" s) s (string-append s "\n"))))
                          (filter (lambda (v) (not (unspecified? v))) vals))))))))

(define (shell-run text)
  (guarded (eval-string text #:module user) '(#t . "")))

(define (read-one text)
  (call-with-input-string text read))

(define (shell-memoize text)
  (guarded (cons #t (eval (read-one text) user))))

(define (shell-compile text)
  (guarded (cons #t (compile (read-one text) #:env user #:to 'value))))

(define (shell-call proc arg)
  (guarded (proc arg) '(#t . "")))
