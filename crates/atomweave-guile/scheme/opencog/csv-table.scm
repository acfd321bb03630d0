;;; (opencog csv-table): upstream's loader of CSV and TSV tables. Each
;;; column of the table becomes a value on an anchor atom, under
;;; (Predicate COLUMN-NAME); the list of those keys is a LinkValue under
;;; (Predicate "*-column-keys-*"). Columns of 0/1/T/F are BoolValues,
;;; of numbers FloatValues, of anything else StringValues.
(define-module (opencog csv-table)
  #:use-module (opencog))

(define-public (load-table ATOM FILE)
  "load-table ATOM FILE -- load the CSV/TSV table in FILE as values on ATOM.
An error if FILE cannot be read or its rows differ in width."
  (%load-table ATOM FILE))
