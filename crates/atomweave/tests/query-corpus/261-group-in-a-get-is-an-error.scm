; A GroupLink groups a Meet's or a Query's results; in a Get it is an error.
;; data
(Edge (Predicate "property") (List (Item "green") (Item "colors")))
;; query
(Get (VariableList (Variable "$X") (Variable "$Y"))
     (And (Group (Variable "$Y")) (Present (Edge (Predicate "property") (List (Variable "$X") (Variable "$Y"))))))
;; expect-error
a GroupLink groups the results of a MeetLink or a QueryLink
