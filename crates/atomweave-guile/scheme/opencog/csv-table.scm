;;; (opencog csv-table): upstream's loader of CSV tables into values.
;;; Not supported by atomweave.
(define-module (opencog csv-table))
(error "(opencog csv-table) is not supported by atomweave: load tables from Python or Scheme and set FloatValues with cog-set-value!")
