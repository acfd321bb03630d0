;;; (opencog persist): the StorageNode calls. A call given no StorageNode
;;; uses the one opened last and still open.
(define-module (opencog persist)
  #:use-module (opencog)
  #:re-export (cog-open cog-close cog-connected? fetch-atom fetch-value
               fetch-incoming-set fetch-incoming-by-type fetch-query
               load-atoms-of-type load-atomspace store-atom store-value
               update-value store-atomspace barrier monitor-storage cog-delete!
               cog-delete-recursive!))
