;;; (opencog persist-sql): PostgresStorageNode: PostgreSQL.
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-sql)
  #:use-module (opencog persist))
