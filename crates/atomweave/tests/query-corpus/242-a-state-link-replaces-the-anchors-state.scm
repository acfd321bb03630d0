; A StateLink is its anchor's one state: adding another replaces it; a
; StateLink holding a variable (code, not a state) is no state.
;; data
(State (Anchor "light") (Concept "red"))
(State (Anchor "light") (Concept "green"))
(Put (State (Anchor "light") (Variable "$x")) (Concept "amber"))
;; query
(Get (State (Anchor "light") (Variable "$s")))
;; expect
(Set (Concept "green"))
