; MeetLink over a glob: each run as a ListLink.
;; data
(List (Concept "a") (Concept "b"))
(List (Concept "a") (Concept "b") (Concept "c"))
;; query
(Meet (List (Concept "a") (Glob "$g")))
;; expect-atoms
(List (Concept "b"))
(List (Concept "b") (Concept "c"))
