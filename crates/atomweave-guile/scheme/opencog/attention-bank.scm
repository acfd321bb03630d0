;;; (opencog attention-bank): (opencog attention) by its old name; the
;;; attention-value calls (av, cog-av, cog-set-av!) are in (opencog).
(define-module (opencog attention-bank)
  #:use-module (opencog)
  #:use-module (opencog attention))

(%atomweave-old-module-name '(opencog attention-bank) "(opencog attention)")
