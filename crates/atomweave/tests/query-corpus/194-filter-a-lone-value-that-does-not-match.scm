; A lone value that does not match gives nothing: VoidValue.
;; data
(Concept "x")
;; query
(Filter (Type "StringValue") (Time))
;; expect-value
(VoidValue)
