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
    let h = one(&s, r#"(Satisfaction (Continuation (Put (DefinedPredicate "is-a") (List (Concept "a") (Concept "b")))))"#);
    assert!(evaluate(&s, h).unwrap_err().to_string().contains("not supported yet"));
    let h = one(&s, r#"(Concept "not code")"#);
    assert!(evaluate(&s, h).unwrap_err().to_string().contains("not evaluatable"));
}
