;;; (opencog persist-file): FileStorageNode: Atomese files.
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-file)
  #:use-module (opencog persist))
