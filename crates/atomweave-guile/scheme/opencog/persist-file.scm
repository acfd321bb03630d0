;;; (opencog persist-file): FileStorageNode: Atomese files.
;;; The StorageNode type is in (opencog); this module exists so that
;;; scripts that load it run unchanged.
(define-module (opencog persist-file)
  #:use-module (opencog)
  #:use-module (opencog persist))

(define-public (load-file path)
  "Adds the atoms of the Atomese file PATH to the current atomspace (and
not the StorageNode that reads it, as upstream's adds only the file's)."
  (let* ((had-store (cog-atom? (cog-node 'FileStorageNode path)))
         (store (FileStorageNode path)))
    (cog-open store)
    (dynamic-wind
      (lambda () #f)
      (lambda () (load-atomspace))
      (lambda ()
        (cog-close store)
        (unless had-store (cog-extract! store))))))
