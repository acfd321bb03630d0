//! Atomese that runs on threads: ParallelLink, ThreadJoinLink and
//! ExecuteThreadedLink.

use std::time::{Duration, Instant};

use atomweave::query::{evaluate, execute_value};
use atomweave::sexpr::load_str;
use atomweave::{types, AtomSpace, Handle, TruthValue, Value};

fn one(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

#[test]
fn parallel_returns_at_once_and_its_members_run_on_their_own() {
    let s = AtomSpace::new();
    let p = one(&s, r#"(Parallel (SequentialAnd (True (Sleep (Number 0.2))) (True (SetValue (Concept "a") (Predicate "k") (Number 7)))))"#);
    let (a, k) = (one(&s, r#"(Concept "a")"#), one(&s, r#"(Predicate "k")"#));
    let started = Instant::now();
    assert_eq!(evaluate(&s, p).unwrap(), TruthValue::simple(1.0, 1.0));
    // Not waited for: the value is not there yet.
    assert_eq!(s.get_value(a, k), None);
    while s.get_value(a, k).is_none() {
        assert!(started.elapsed() < Duration::from_secs(30), "the Parallel member never ran");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(started.elapsed() >= Duration::from_millis(200));
}

#[test]
fn thread_join_waits_for_every_member_and_reports_a_failure() {
    let s = AtomSpace::new();
    let j = one(&s, r#"(ThreadJoin (True (SetValue (Concept "x") (Predicate "k") (Number 1))) (True (SetValue (Concept "y") (Predicate "k") (Number 2))))"#);
    assert_eq!(evaluate(&s, j).unwrap(), TruthValue::simple(1.0, 1.0));
    let k = one(&s, r#"(Predicate "k")"#);
    for name in ["x", "y"] {
        let h = s.get_node(types::CONCEPT_NODE, name).unwrap();
        assert!(s.get_value(h, k).is_some(), "{name} was set before the join returned");
    }
    let bad = one(&s, r#"(ThreadJoin (True) (Evaluation (GroundedPredicate "no-such-scheme:f") (List)))"#);
    assert!(evaluate(&s, bad).is_err());
}

#[test]
fn threads_that_start_threads_stop_with_an_error_not_a_crash() {
    let s = AtomSpace::new();
    one(&s, r#"(Define (DefinedPredicate "fork") (ThreadJoin (DefinedPredicate "fork") (True)))"#);
    let fork = one(&s, r#"(DefinedPredicate "fork")"#);
    let err = evaluate(&s, fork).unwrap_err().to_string();
    assert!(err.contains("at once") || err.contains("nest"), "{err}");
    // Every thread was given back: a join of two runs again.
    let j = one(&s, "(ThreadJoin (True) (True))");
    assert!(evaluate(&s, j).is_ok());
}

#[test]
fn execute_threaded_gives_every_result_whatever_the_number_of_threads() {
    let s = AtomSpace::new();
    let members: String = (0..40).map(|i| format!("(Plus (Number {i}) (Number 1000))")).collect();
    for threads in ["", "(Number 3)", "(Number 100)"] {
        let e = one(&s, &format!("(ExecuteThreaded {threads} (Set {members}))"));
        let Value::Queue(q) = execute_value(&s, e).unwrap() else { panic!("ExecuteThreaded gives a queue") };
        let mut got: Vec<String> = q
            .snapshot()
            .iter()
            .map(|v| match v {
                Value::Atom(h) => s.name(*h).unwrap().to_owned(),
                other => panic!("expected NumberNodes, got {other:?}"),
            })
            .collect();
        got.sort();
        let mut want: Vec<String> = (1000..1040).map(|n| n.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "with threads {threads:?}");
    }
}
