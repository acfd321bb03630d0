;;; What the Scheme suites share (loaded by each, beside it).

(define (raises-with? text thunk)
  "Whether THUNK raises an exception whose message mentions TEXT."
  (catch #t
    (lambda () (thunk) #f)
    (lambda (key . args)
      (string-contains (call-with-output-string
                         (lambda (p) (print-exception p #f key args)))
                       text))))
