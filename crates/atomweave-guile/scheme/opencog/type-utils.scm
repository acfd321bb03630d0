;;; (opencog type-utils): upstream's type checker, by its module's names.
;;; cog-value-is-type? checks simple and deep specifications (Type,
;;; TypeInh, TypeCoInh, TypeChoice, Signature, DefinedType);
;;; cog-type-match? compares simple ones; cog-type-compose raises "not
;;; supported". All three are in (opencog) too.
(define-module (opencog type-utils)
  #:use-module (opencog)
  #:re-export (cog-value-is-type? cog-type-match? cog-type-compose))
