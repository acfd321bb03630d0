; A MeetLink over an empty space: no result.
;; data
;; query
(Meet (Inheritance (Variable "$x") (Concept "human")))
;; expect-atoms
