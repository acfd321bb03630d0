;;; (opencog persist-pgsql): (opencog persist-sql) by its old name.
(define-module (opencog persist-pgsql)
  #:use-module (opencog)
  #:use-module (opencog persist-sql))

(%atomweave-old-module-name '(opencog persist-pgsql) "(opencog persist-sql)")
