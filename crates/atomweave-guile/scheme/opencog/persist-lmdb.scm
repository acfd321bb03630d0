;;; (opencog persist-lmdb): LmdbStorageNode: the embedded store.
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-lmdb)
  #:use-module (opencog persist))
