; LocalQuoteLink: the AndLink directly inside is matched literally.
;; data
(And (Concept "a") (Concept "b"))
(And (Concept "c") (Concept "a"))
(And (Concept "d") (Concept "e"))
;; query
(Get (LocalQuote (And (Concept "a") (Variable "$x"))))
;; expect
(Set (Concept "b") (Concept "c"))
