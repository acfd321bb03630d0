; A GroupLink in a Meet's body: one LinkValue per group of groundings that
; agree on the group's variable (groups and members in the results' order).
;; data
(Edge (Predicate "property") (List (Item "green") (Item "colors")))
(Edge (Predicate "property") (List (Item "brown") (Item "colors")))
(Edge (Predicate "property") (List (Item "round") (Item "shapes")))
;; query
(Meet (VariableList (Variable "$X") (Variable "$Y"))
      (And (Group (Variable "$Y")) (Present (Edge (Predicate "property") (List (Variable "$X") (Variable "$Y"))))))
;; expect-value
(QueueValue (LinkValue (LinkValue (ItemNode "round")(ItemNode "shapes")))(LinkValue (LinkValue (ItemNode "green")(ItemNode "colors"))(LinkValue (ItemNode "brown")(ItemNode "colors"))))
