;;; (opencog persist-rocks): RocksStorageNode: atomweave's embedded store (LMDB), so upstream scripts run unchanged.
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-rocks)
  #:use-module (opencog persist))
