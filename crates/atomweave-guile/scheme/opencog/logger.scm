;;; (opencog logger): upstream's logging calls on the default logger (or
;;; on a logger given first). The loggers and their -of-logger calls are
;;; in (opencog); messages take ice-9 format directives:
;;;   (cog-logger-info "loaded ~a atoms" n)
(define-module (opencog logger)
  #:use-module (opencog)
  #:use-module (ice-9 format))

;; ARGS with the default logger in front, unless a logger is first.
(define (with-logger args)
  (if (and (pair? args) (cog-logger? (car args))) args (cons (cog-default-logger) args)))

(define-syntax-rule (define-on-default name of-logger)
  (define-public (name . args)
    (apply of-logger (with-logger args))))

(define-on-default cog-logger-get-filename cog-logger-get-filename-of-logger)
(define-on-default cog-logger-get-level cog-logger-get-level-of-logger)
(define-on-default cog-logger-get-component cog-logger-get-component-of-logger)
(define-on-default cog-logger-set-filename! cog-logger-set-filename-of-logger!)
(define-on-default cog-logger-set-level! cog-logger-set-level-of-logger!)
(define-on-default cog-logger-set-component! cog-logger-set-component-of-logger!)
(define-on-default cog-logger-set-stdout! cog-logger-set-stdout-of-logger!)
(define-on-default cog-logger-set-sync! cog-logger-set-sync-of-logger!)
(define-on-default cog-logger-set-timestamp! cog-logger-set-timestamp-of-logger!)
(define-on-default cog-logger-error-enabled? cog-logger-error-enabled-of-logger?)
(define-on-default cog-logger-warn-enabled? cog-logger-warn-enabled-of-logger?)
(define-on-default cog-logger-info-enabled? cog-logger-info-enabled-of-logger?)
(define-on-default cog-logger-debug-enabled? cog-logger-debug-enabled-of-logger?)
(define-on-default cog-logger-fine-enabled? cog-logger-fine-enabled-of-logger?)
(define-on-default cog-logger-flush cog-logger-flush-of-logger)

;; A message: MSG formatted with ARGS (ice-9 format), written at a level.
(define-syntax-rule (define-formatting name of-logger)
  (define-public (name . args)
    (let ((args (with-logger args)))
      (of-logger (car args) (apply format #f (cadr args) (cddr args))))))

(define-formatting cog-logger-error cog-logger-error-of-logger)
(define-formatting cog-logger-warn cog-logger-warn-of-logger)
(define-formatting cog-logger-info cog-logger-info-of-logger)
(define-formatting cog-logger-debug cog-logger-debug-of-logger)
(define-formatting cog-logger-fine cog-logger-fine-of-logger)
