;;; (opencog persist-cog): CogStorageNode: a CogServer (cog://host:port).
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-cog)
  #:use-module (opencog persist))
