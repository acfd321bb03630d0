//! `query::evaluate`: what cog-evaluate! and evaluate_atom give.

use atomweave::query::evaluate;
use atomweave::sexpr::load_str;
use atomweave::{AtomSpace, Handle, TruthValue};

fn one(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

fn yes() -> TruthValue {
    TruthValue::simple(1.0, 1.0)
}

fn no() -> TruthValue {
    TruthValue::simple(0.0, 1.0)
}

fn taxonomy() -> AtomSpace {
    let space = AtomSpace::new();
    load_str(
        &mut &space,
        r#"(Inheritance (Concept "mammal") (Concept "vertebrate"))
           (Inheritance (Concept "human") (Concept "mammal"))
           (Define (DefinedPredicate "is-a") (Lambda (VariableList (Variable "this") (Variable "that"))
                     (Present (Inheritance (Variable "this") (Variable "that")))))"#,
    )
    .unwrap();
    space
}

#[test]
fn an_evaluation_of_code_applies_it_to_its_arguments() {
    let s = taxonomy();
    let cases = [
        (r#"(Evaluation (Present (Inheritance (Variable "a") (Variable "b"))) (List (Concept "mammal") (Concept "vertebrate")))"#, yes()),
        (r#"(Evaluation (Present (Inheritance (Variable "a") (Variable "b"))) (List (Concept "foobar") (Concept "vertebrate")))"#, no()),
        (r#"(Evaluation (Absent (Inheritance (Variable "a") (Variable "b"))) (List (Concept "foobar") (Concept "vertebrate")))"#, yes()),
        (r#"(Evaluation (Not (Absent (Inheritance (Variable "a") (Variable "b")))) (List (Concept "mammal") (Concept "vertebrate")))"#, yes()),
        (r#"(Evaluation (DefinedPredicate "is-a") (List (Concept "human") (Concept "mammal")))"#, yes()),
        (r#"(Evaluation (DefinedPredicate "is-a") (List (Concept "human") (Concept "vertebrate")))"#, no()),
        (
            r#"(Evaluation (Lambda (VariableList (Variable "x") (Variable "z"))
                  (Satisfaction (Variable "y") (Present (Inheritance (Variable "x") (Variable "y")) (Inheritance (Variable "y") (Variable "z")))))
                (List (Concept "human") (Concept "vertebrate")))"#,
            yes(),
        ),
        (r#"(SequentialOr (Evaluation (DefinedPredicate "is-a") (List (Concept "human") (Concept "vertebrate"))) (True))"#, yes()),
        (r#"(SequentialAnd (True) (False))"#, no()),
    ];
    for (text, want) in cases {
        let h = one(&s, text);
        assert_eq!(evaluate(&s, h).unwrap(), want, "{text}");
    }
    // Looking up presence adds nothing: foobar's Inheritance was never built.
    assert!(s.get_node(atomweave::types::CONCEPT_NODE, "foobar").is_some());
    let foobar = s.get_node(atomweave::types::CONCEPT_NODE, "foobar").unwrap();
    let vertebrate = s.get_node(atomweave::types::CONCEPT_NODE, "vertebrate").unwrap();
    assert_eq!(s.get_link(atomweave::types::INHERITANCE_LINK, &[foobar, vertebrate]), None);
}

#[test]
fn a_plain_evaluation_gives_its_truth_value_and_code_not_run_is_an_error() {
    let s = taxonomy();
    let h = one(&s, r#"(Evaluation (Predicate "likes") (List (Concept "a") (Concept "b")) (stv 0.25 0.5))"#);
    assert_eq!(evaluate(&s, h).unwrap(), TruthValue::simple(0.25, 0.5));
    let d = one(&s, r#"(DefinedPredicate "is-a")"#);
    let err = evaluate(&s, d).map(|tv| format!("{tv:?}")).unwrap_or_else(|e| e.to_string());
    assert!(err.contains("not evaluatable"), "a LambdaLink gives no truth value by itself: {err}");
    // A ContinuationLink's step is the predicate applied, as an Evaluation of it.
    let h = one(&s, r#"(Satisfaction (Continuation (Put (DefinedPredicate "is-a") (List (Concept "a") (Concept "b")))))"#);
    let direct = one(&s, r#"(Evaluation (DefinedPredicate "is-a") (List (Concept "a") (Concept "b")))"#);
    assert_eq!(evaluate(&s, h).unwrap(), evaluate(&s, direct).unwrap());
    let h = one(&s, r#"(Concept "not code")"#);
    assert!(evaluate(&s, h).unwrap_err().to_string().contains("not evaluatable"));
}

#[test]
fn numbers_flow_from_truth_values_and_float_values() {
    use atomweave::query::{execute, Executed};
    use atomweave::Value;
    let s = AtomSpace::new();
    load_str(&mut &s, r#"(Concept "A" (stv 0.8 1)) (Concept "B" (stv 0.5 0.9)) (Concept "C")"#).unwrap();
    let c = s.get_node(atomweave::types::CONCEPT_NODE, "C").unwrap();
    let k = one(&s, r#"(Predicate "k")"#);
    s.set_value(c, k, Value::float(vec![1.0, 2.0])).unwrap();
    let float = |text: &str| match execute(&s, one(&s, text)).unwrap() {
        Executed::Value(Value::Float(v)) => v.to_vec(),
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(float(r#"(StrengthOf (Concept "A") (Concept "B"))"#), [0.8, 0.5]);
    assert_eq!(float(r#"(ConfidenceOf (Concept "B"))"#), [0.9]);
    assert_eq!(float(r#"(Times (StrengthOf (Concept "A")) (StrengthOf (Concept "B")))"#), [0.4]);
    assert_eq!(float(r#"(Plus (FloatValueOf (Concept "C") (Predicate "k")) (Number 10))"#), [11.0, 12.0]);
    assert_eq!(float(r#"(FloatValueOf (Concept "C") (Predicate "none") (Number 3))"#), [3.0], "the default");
    // NumberNodes alone still give a NumberNode.
    let Executed::Atom(n) = execute(&s, one(&s, r#"(Plus (Number 1) (Number 2))"#)).unwrap() else { panic!("a NumberNode") };
    assert_eq!(s.name(n), Some("3"));
    let err = execute(&s, one(&s, r#"(Times (Concept "A") (Number 2))"#)).unwrap_err().to_string();
    assert!(err.contains("is not a number"), "{err}");
    let err = execute(&s, one(&s, r#"(FloatValueOf (Concept "C") (Predicate "none"))"#)).unwrap_err().to_string();
    assert!(err.contains("no value under that key"), "{err}");
    // A formula predicate: strength and confidence computed.
    let f = one(
        &s,
        r#"(FormulaPredicate (Minus (Number 1) (Times (StrengthOf (Concept "A")) (StrengthOf (Concept "B")))) (Times (ConfidenceOf (Concept "A")) (ConfidenceOf (Concept "B"))))"#,
    );
    let tv = evaluate(&s, f).unwrap();
    assert!((tv.mean() - 0.6).abs() < 1e-12 && (tv.confidence() - 0.9).abs() < 1e-12, "{tv:?}");
    // Applied to arguments: its variables, in order, are its parameters.
    let e = one(&s, r#"(Evaluation (FormulaPredicate (StrengthOf (Variable "$X")) (ConfidenceOf (Variable "$Y"))) (List (Concept "A") (Concept "B")))"#);
    let tv = evaluate(&s, e).unwrap();
    assert!((tv.mean() - 0.8).abs() < 1e-12 && (tv.confidence() - 0.9).abs() < 1e-12, "{tv:?}");
    let e = one(&s, r#"(Evaluation (FormulaPredicate (Number 0.7) (Number 0.25)) (List (Concept "A") (Concept "B")))"#);
    assert_eq!(evaluate(&s, e).unwrap(), TruthValue::simple(0.7, 0.25), "no parameters: the arguments are ignored");
}

#[test]
fn a_put_of_a_delete_extracts_what_it_names() {
    use atomweave::query::{execute, Executed};
    let s = AtomSpace::new();
    load_str(&mut &s, r#"(Concept "deleteme") (List (Concept "deleteme") (Concept "other"))"#).unwrap();
    let put = one(&s, r#"(Put (Delete (Variable "X")) (Concept "deleteme"))"#);
    assert_eq!(execute(&s, put).unwrap(), Executed::Value(atomweave::Value::Void));
    assert_eq!(s.get_node(atomweave::types::CONCEPT_NODE, "deleteme"), None, "gone, and the links holding it");
    assert!(s.get_node(atomweave::types::CONCEPT_NODE, "other").is_some());
}

#[test]
fn set_tv_and_set_value_set_what_their_expressions_give() {
    use atomweave::query::{execute, Executed};
    use atomweave::Value;
    let s = AtomSpace::new();
    load_str(&mut &s, r#"(Concept "foo" (stv 0.5 0.8)) (Concept "bar")"#).unwrap();
    let bar = s.get_node(atomweave::types::CONCEPT_NODE, "bar").unwrap();
    let run = |text: &str| execute(&s, one(&s, text)).unwrap();
    assert_eq!(run(r#"(SetTV (Concept "bar") (TruthValueOf (Concept "foo")))"#), Executed::Value(Value::Truth(TruthValue::simple(0.5, 0.8))));
    assert_eq!(s.get_tv(bar), Some(TruthValue::simple(0.5, 0.8)));
    run(r#"(SetTV (Concept "bar") (FormulaPredicate (Number 0.25) (Number 0.5)))"#);
    assert_eq!(s.get_tv(bar), Some(TruthValue::simple(0.25, 0.5)));
    run(r#"(SetTV (Concept "bar") (Times (TruthValueOf (Concept "foo")) (TruthValueOf (Concept "foo"))))"#);
    let tv = s.get_tv(bar).unwrap();
    assert!((tv.mean() - 0.25).abs() < 1e-12 && (tv.confidence() - 0.64).abs() < 1e-12, "{tv:?}");
    assert_eq!(run(r#"(SetValue (Concept "bar") (Predicate "k") (Plus (Number 1) (Number 2)))"#), Executed::Atom(one(&s, r#"(Number "3")"#)));
    let k = s.get_node(atomweave::types::PREDICATE_NODE, "k").unwrap();
    assert_eq!(s.get_value(bar, k), Some(Value::Atom(one(&s, r#"(Number "3")"#))));
    run(r#"(SetValue (Concept "bar") (Predicate "k") (StrengthOf (Concept "foo")))"#);
    assert_eq!(s.get_value(bar, k), Some(Value::float(vec![0.5])));
}

#[test]
fn a_definition_that_recurses_in_its_last_step_loops_in_constant_depth() {
    // 2,000 rounds: far deeper than executions may nest (256).
    let s = AtomSpace::new();
    load_str(
        &mut &s,
        r#"(State (Anchor "count") (Number 0))
           (Define (DefinedPredicate "count up")
             (SequentialAnd
               (True (Put (State (Anchor "count") (Variable "$x")) (Plus (Number 1) (Get (State (Anchor "count") (Variable "$y"))))))
               (GreaterThan (Number 2000) (Get (State (Anchor "count") (Variable "$z"))))
               (DefinedPredicate "count up")))"#,
    )
    .unwrap();
    let run = one(&s, r#"(DefinedPredicate "count up")"#);
    assert_eq!(evaluate(&s, run).unwrap(), no());
    let count = one(&s, r#"(State (Anchor "count") (Number 2000))"#);
    assert!(s.contains(count));
}

#[test]
fn a_predicate_defined_by_itself_is_an_error_not_a_loop() {
    // Each would loop doing nothing: the test hangs without the check.
    for definitions in [
        r#"(Define (DefinedPredicate "p") (DefinedPredicate "p"))"#,
        r#"(Define (DefinedPredicate "p") (DefinedPredicate "q")) (Define (DefinedPredicate "q") (DefinedPredicate "p"))"#,
        r#"(Define (DefinedPredicate "p") (Continuation (DefinedPredicate "p")))"#,
    ] {
        let s = AtomSpace::new();
        load_str(&mut &s, definitions).unwrap();
        let p = one(&s, r#"(DefinedPredicate "p")"#);
        let e = evaluate(&s, p).unwrap_err().to_string();
        assert!(e.contains("defined by itself"), "{definitions}: {e}");
    }
    // A name met again after a step that evaluated something is a loop,
    // as the counting loop above: not refused.
    let s = AtomSpace::new();
    load_str(&mut &s, r#"(Define (DefinedPredicate "p") (SequentialAnd (True) (DefinedPredicate "q"))) (Define (DefinedPredicate "q") (False))"#).unwrap();
    assert_eq!(evaluate(&s, one(&s, r#"(DefinedPredicate "p")"#)).unwrap(), no());
}

#[test]
fn a_formula_stored_as_a_value_is_evaluated_through_value_of() {
    let s = AtomSpace::new();
    load_str(&mut &s, r#"(Concept "c" (alist (cons (Predicate "test") (GreaterThan (Number 2) (Number 1)))))"#).unwrap();
    let read = one(&s, r#"(ValueOf (Concept "c") (Predicate "test"))"#);
    assert_eq!(evaluate(&s, read).unwrap(), yes());
}

#[test]
fn an_anchored_query_puts_each_grounding_on_the_anchor() {
    use atomweave::query::execute_value;
    use atomweave::types;
    let s = AtomSpace::new();
    one(&s, r#"(Evaluation (Predicate "foobar") (List (Concept "funny") (Concept "thing")))"#);
    one(&s, r#"(Evaluation (Predicate "foobar") (List (Concept "funny") (Concept "stuff")))"#);
    let anchor = one(&s, r#"(Anchor "here")"#);
    let sat = one(&s, r#"(Satisfaction (Anchor "here") (Evaluation (Predicate "foobar") (List (Concept "funny") (Variable "$x"))))"#);
    assert_eq!(execute_value(&s, sat).unwrap(), atomweave::Value::Truth(yes()));
    let members = |s: &AtomSpace| {
        let mut m: Vec<String> = s
            .incoming_by_type(anchor, types::MEMBER_LINK)
            .into_iter()
            .map(|l| atomweave::sexpr::atom_prefix(s, s.outgoing(l).unwrap()[0], atomweave::sexpr::Form::Wire, 200))
            .collect();
        m.sort();
        m
    };
    assert_eq!(members(&s), ["(ConceptNode \"stuff\")", "(ConceptNode \"thing\")"]);
    // Two variables: a ListLink of the groundings in declaration order.
    let two = one(
        &s,
        r#"(Satisfaction (VariableList (Variable "$p") (Variable "$x") (Anchor "here")) (Evaluation (Variable "$p") (List (Concept "funny") (Variable "$x"))))"#,
    );
    execute_value(&s, two).unwrap();
    assert!(members(&s).contains(&"(ListLink (PredicateNode \"foobar\")(ConceptNode \"thing\"))".to_string()), "{:?}", members(&s));
    // Two anchors are an error.
    let bad =
        one(&s, r#"(Get (VariableList (Variable "$x") (Anchor "a") (Anchor "b")) (Evaluation (Predicate "foobar") (List (Concept "funny") (Variable "$x"))))"#);
    assert!(execute_value(&s, bad).unwrap_err().to_string().contains("more than one AnchorNode"));
}

#[test]
fn a_delete_built_by_a_rewrite_takes_its_atom_out_of_the_space() {
    use atomweave::query::execute_value;
    let s = AtomSpace::new();
    let item = one(&s, r#"(Evaluation (Predicate "visibility") (List (Concept "item")))"#);
    let destroy =
        one(&s, r#"(Bind (Evaluation (Predicate "visibility") (List (Variable "$x"))) (Delete (Evaluation (Predicate "visibility") (List (Variable "$x")))))"#);
    execute_value(&s, destroy).unwrap();
    assert!(!s.contains(item));
    // The query's own DeleteLink (over a variable) is the only one left.
    assert_eq!(s.handles_by_type(atomweave::types::DELETE_LINK, false).count(), 1, "the built DeleteLink is not left in the space");
}

#[test]
fn a_definition_recurses_through_a_continuation_and_stops_on_a_cycle() {
    let s = taxonomy();
    one(
        &s,
        r#"(Define (DefinedPredicate "ancestor")
             (Lambda (VariableList (Variable "this") (Variable "that"))
               (SequentialOr
                 (Present (Inheritance (Variable "this") (Variable "that")))
                 (Satisfaction (Variable "middle")
                   (And (Present (Inheritance (Variable "this") (Variable "middle")))
                        (Continuation (Put (DefinedPredicate "ancestor") (List (Variable "middle") (Variable "that")))))))))"#,
    );
    let up = one(&s, r#"(Evaluation (DefinedPredicate "ancestor") (List (Concept "human") (Concept "vertebrate")))"#);
    assert_eq!(evaluate(&s, up).unwrap(), yes());
    let nowhere = one(&s, r#"(Evaluation (DefinedPredicate "ancestor") (List (Concept "human") (Concept "foobar")))"#);
    assert_eq!(evaluate(&s, nowhere).unwrap(), no());
    // A cycle in the data: the search for what is not there ends in an error, not a crash.
    one(&s, r#"(Inheritance (Concept "vertebrate") (Concept "human"))"#);
    assert!(evaluate(&s, nowhere).unwrap_err().to_string().contains("nest"));
}
