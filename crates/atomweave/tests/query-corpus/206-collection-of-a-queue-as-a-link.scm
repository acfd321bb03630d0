; CollectionOf a MeetLink's QueueValue, as a link of the type asked for.
;; data
(Evaluation (Predicate "likes") (Concept "tea"))
;; query
(CollectionOf (Type "ListLink") (Meet (TypedVariable (Variable "$x") (Type "ConceptNode")) (Evaluation (Predicate "likes") (Variable "$x"))))
;; expect
(List (Concept "tea"))
