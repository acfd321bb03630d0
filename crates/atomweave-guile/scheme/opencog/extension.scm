;;; (opencog extension): a module upstream's C++ extensions define their
;;; calls in; atomweave's are all in (opencog), which this module uses.
(define-module (opencog extension)
  #:use-module (opencog))
