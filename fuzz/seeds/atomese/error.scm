(Concept "kept")
(List (Concept "a") (Concept "b"))
(List (Concept "half") (NoSuchTypeLink (Concept "c")))
(Concept "never")
