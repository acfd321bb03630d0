;;; (opencog matrix): upstream's library of sparse-matrix views over atoms.
;;; Not supported by atomweave (it is a large Scheme library of its own).
(define-module (opencog matrix))
(error "(opencog matrix) is not supported by atomweave: upstream's sparse-matrix library is not provided")
