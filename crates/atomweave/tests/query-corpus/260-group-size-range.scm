; A group's size bounds: groups of 2 to 4 groundings are kept; a Query's
; rewrite per grounding, repeats once.
;; data
(Edge (Predicate "property") (List (Item "green") (Item "colors")))
(Edge (Predicate "property") (List (Item "brown") (Item "colors")))
(Edge (Predicate "property") (List (Item "vague") (Item "cloudy")))
;; query
(Query (VariableList (Variable "$X") (Variable "$Y"))
       (And (Group (Variable "$Y") (Interval (Number 2) (Number 4)))
            (Present (Edge (Predicate "property") (List (Variable "$X") (Variable "$Y")))))
       (Variable "$Y"))
;; expect-value
(QueueValue (LinkValue (ItemNode "colors")))
