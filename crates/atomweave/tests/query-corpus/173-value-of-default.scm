; ValueOfLink with no value under the key gives the default after it.
;; data
(Concept "a")
;; query
(ValueOf (Concept "a") (Predicate "no such key") (Concept "fallback"))
;; expect
(Concept "fallback")
