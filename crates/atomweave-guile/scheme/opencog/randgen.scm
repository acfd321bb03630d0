;;; (opencog randgen): the AtomSpace's random numbers, which are in (opencog).
(define-module (opencog randgen)
  #:use-module (opencog)
  #:re-export (cog-randgen-set-seed! cog-randgen-randint cog-randgen-randfloat))
