;;; (opencog type-utils): upstream's deep type system (signatures, type
;;; composition). Not supported by atomweave; (opencog) has
;;; cog-value-is-type? and cog-type-match? for simple type specifications.
(define-module (opencog type-utils))
(error "(opencog type-utils) is not supported by atomweave: deep types are not provided; (opencog) checks simple type specifications with cog-value-is-type?")
