;;; (opencog uuid): numbers given to atoms, whose calls are in (opencog).
(define-module (opencog uuid)
  #:use-module (opencog)
  #:re-export (cog-add-uuid cog-assign-uuid cog-lookup-uuid cog-unassign-uuid cog-remove-uuid))
