;;; (opencog query): the pattern matcher's module by its old name; upstream
;;; folded it into (opencog exec). Old files that load it run: it is
;;; (opencog exec) with the old calls (cog-bind and kin) by their names.
(define-module (opencog query)
  #:use-module (opencog)
  #:use-module (opencog exec)
  #:re-export (cog-execute! cog-evaluate!))

(%atomweave-old-module-name '(opencog query) "(opencog exec), with cog-execute! for cog-bind")

(define-public (cog-bind query)
  "What executing QUERY gives: cog-execute!'s old name."
  (cog-execute! query))

(define-public (cog-recognize query)
  "What executing QUERY gives: cog-execute!'s old name (for DualLink)."
  (cog-execute! query))

(define-public (cog-satisfying-set query)
  "What executing QUERY gives: cog-execute!'s old name (for GetLink)."
  (cog-execute! query))

(define-public (cog-satisfy query)
  "The truth value of QUERY: cog-evaluate!'s old name."
  (cog-evaluate! query))
