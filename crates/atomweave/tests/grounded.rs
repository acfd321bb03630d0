//! Grounded procedures through the registry: a front end (here Rust code)
//! registers a prefix; ExecutionOutputLink and EvaluationLink call it, at the
//! top and as evaluated clauses inside a query.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use atomweave::query::grounded::{register, Procedures};
use atomweave::query::{execute, Executed};
use atomweave::sexpr::load_str;
use atomweave::types::*;
use atomweave::{AtomSpace, Error, Handle, TruthValue, Value};

struct Rust {
    calls: AtomicUsize,
}

impl Procedures for Rust {
    fn call(&self, space: &AtomSpace, name: &str, args: &[Handle]) -> atomweave::Result<Value> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        match name {
            // The first argument, wrapped in a ListLink with a new node (added where the call runs).
            "wrap" => Ok(Value::Atom(space.add_link(LIST_LINK, &[args[0], space.add_node(CONCEPT_NODE, "wrapped")?])?)),
            // True for atoms whose name is long; marks the space it runs in.
            "long" => Ok({
                space.add_node(CONCEPT_NODE, "mark")?;
                Value::Truth(TruthValue::simple(if space.name(args[0]).unwrap_or("").len() > 3 { 1.0 } else { 0.0 }, 1.0))
            }),
            "count" => Ok(Value::float(vec![args.len() as f64])),
            "fail" => Err(Error::Procedure("it failed on purpose".into())),
            _ => Err(Error::Procedure(format!("no procedure {name}"))),
        }
    }
}

fn one(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

#[test]
fn grounded_procedures_run_through_their_prefix() {
    let rust = Arc::new(Rust { calls: AtomicUsize::new(0) });
    register("rs", rust.clone());
    let space = AtomSpace::new();

    let q = one(&space, r#"(ExecutionOutput (GroundedSchema "rs:wrap") (List (Concept "a")))"#);
    let Executed::Atom(got) = execute(&space, q).unwrap() else { panic!("an atom") };
    assert_eq!(got, one(&space, r#"(List (Concept "a") (Concept "wrapped"))"#));

    // Arguments: a lone ListLink's members, else the atoms after the procedure.
    let q = one(&space, r#"(ExecutionOutput (GroundedSchema "rs: count") (List (Concept "a") (Concept "b")))"#);
    assert_eq!(execute(&space, q).unwrap(), Executed::Value(Value::float(vec![2.0])), "the name is trimmed");
    let q = one(&space, r#"(Evaluation (GroundedPredicate "rs:long") (Concept "abcdef"))"#);
    assert_eq!(execute(&space, q).unwrap(), Executed::Value(Value::Truth(TruthValue::simple(1.0, 1.0))));

    let q = one(&space, r#"(ExecutionOutput (GroundedSchema "rs:fail") (List))"#);
    assert_eq!(execute(&space, q), Err(Error::Procedure("it failed on purpose".into())));
    let q = one(&space, r#"(Evaluation (GroundedPredicate "rs:count") (List))"#);
    assert!(matches!(execute(&space, q), Err(Error::Procedure(m)) if m.contains("did not return a TruthValue")));
    let q = one(&space, r#"(ExecutionOutput (GroundedSchema "nocolon") (List))"#);
    assert!(matches!(execute(&space, q), Err(Error::Procedure(m)) if m.contains("prefix:name")));
}

#[test]
fn a_grounded_predicate_filters_a_query_in_a_scratch_frame() {
    register("rsq", Arc::new(Rust { calls: AtomicUsize::new(0) }));
    let space = AtomSpace::new();
    load_str(&mut &space, r#"(Member (Concept "ab") (Concept "set")) (Member (Concept "abcdef") (Concept "set")) (Member (Concept "xyzxyz") (Concept "set"))"#)
        .unwrap();
    let q = one(
        &space,
        r#"(Get (And (Member (Variable "$x") (Concept "set"))
                     (Evaluation (GroundedPredicate "rsq:long") (List (Variable "$x")))))"#,
    );
    let size = space.size();
    let Executed::Atom(set) = execute(&space, q).unwrap() else { panic!("a SetLink") };
    let mut got: Vec<&str> = space.outgoing(set).unwrap().iter().map(|&h| space.name(h).unwrap()).collect();
    got.sort();
    assert_eq!(got, ["abcdef", "xyzxyz"]);
    // The query added its SetLink; the calls' arguments and additions went
    // to scratch frames.
    assert_eq!(space.size(), size + 1);
    assert_eq!(space.get_node(CONCEPT_NODE, "mark"), None);

    let sat = one(
        &space,
        r#"(Satisfaction (VariableList) (SequentialAnd
              (Evaluation (GroundedPredicate "rsq:long") (List (Concept "abcdef")))
              (Evaluation (GroundedPredicate "rsq:long") (List (Concept "ab")))))"#,
    );
    assert_eq!(execute(&space, sat).unwrap(), Executed::Value(Value::Truth(TruthValue::simple(0.0, 1.0))));
}

/// Sees, in each call, whether an atom an earlier call made is still there.
struct Leaky;

impl Procedures for Leaky {
    fn call(&self, space: &AtomSpace, _name: &str, _args: &[Handle]) -> atomweave::Result<Value> {
        let seen = space.get_node(CONCEPT_NODE, "left by an earlier call").is_some();
        space.add_node(CONCEPT_NODE, "left by an earlier call")?;
        Ok(Value::Truth(TruthValue::simple(if seen { 0.0 } else { 1.0 }, 1.0)))
    }
}

#[test]
fn each_call_in_a_query_starts_from_an_empty_frame_and_the_frames_go_with_the_query() {
    register("leaky", Arc::new(Leaky));
    let space = AtomSpace::new();
    for i in 0..300 {
        space.add_link(MEMBER_LINK, &[space.add_node(CONCEPT_NODE, &format!("m{i}")).unwrap(), space.add_node(CONCEPT_NODE, "set").unwrap()]).unwrap();
    }
    let q = one(&space, r#"(Get (And (Member (Variable "$x") (Concept "set")) (Evaluation (GroundedPredicate "leaky:x") (List (Variable "$x")))))"#);
    let Executed::Atom(set) = execute(&space, q).unwrap() else { panic!("a GetLink gives an atom") };
    // Every call found its frame empty (frames are reused, emptied), and
    // nothing a call made reached the space.
    assert_eq!(space.outgoing(set).unwrap().len(), 300);
    assert!(space.get_node(CONCEPT_NODE, "left by an earlier call").is_none());
    // No frame outlives the query: once the space's last handle goes, it goes.
    let weak = space.downgrade();
    drop(space);
    assert!(weak.upgrade().is_none(), "a scratch frame kept the space alive");
}

#[test]
fn an_evaluated_clause_runs_once_per_grounding() {
    // A prefix of its own: the other tests count their own calls.
    let rust = Arc::new(Rust { calls: AtomicUsize::new(0) });
    register("once", rust.clone());
    let space = AtomSpace::new();
    one(&space, r#"(Inheritance (Concept "battery") (Concept "device"))"#);
    one(&space, r#"(Inheritance (Concept "transistor") (Concept "device"))"#);
    one(&space, r#"(Evaluation (Predicate "PartOf") (List (Concept "battery") (Concept "car")))"#);
    one(&space, r#"(Evaluation (Predicate "PartOf") (List (Concept "transistor") (Concept "phone")))"#);
    // The grounded clause's variable is bound by the first clause; the
    // second binds another: it runs once for each of the two groundings.
    let q = one(
        &space,
        r#"(Get (And (Inheritance (Variable "$x") (Concept "device"))
                     (Evaluation (Predicate "PartOf") (List (Variable "$x") (Variable "$y")))
                     (Evaluation (GroundedPredicate "once:long") (List (Variable "$x")))))"#,
    );
    execute(&space, q).unwrap();
    assert_eq!(rust.calls.load(Ordering::SeqCst), 2);
}

#[test]
fn a_front_end_that_passes_atoms_only_refuses_values() {
    let rust = Arc::new(Rust { calls: AtomicUsize::new(0) });
    register("atoms", rust.clone());
    let space = AtomSpace::new();
    one(&space, r#"(Concept "holder" (alist (cons (Predicate "k") (LinkValue (LinkValue (StringValue "d"))))))"#);
    let q = one(
        &space,
        r#"(Filter (Rule (LinkSignature (Type "LinkValue") (Glob "$x")) (ExecutionOutput (GroundedSchema "atoms:count") (Glob "$x")))
                   (ValueOf (Concept "holder") (Predicate "k")))"#,
    );
    let err = execute(&space, q).unwrap_err().to_string();
    assert!(err.contains("passes atoms only") && err.contains("StringValue"), "{err}");
    assert_eq!(rust.calls.load(Ordering::SeqCst), 0);
}

/// A grounded predicate (always true) that notes something about the
/// frame each call runs in.
struct CallLog<T> {
    notes: std::sync::Mutex<Vec<T>>,
    note: fn(&AtomSpace) -> atomweave::Result<T>,
}

impl<T: Send + 'static> CallLog<T> {
    fn new(note: fn(&AtomSpace) -> atomweave::Result<T>) -> Arc<Self> {
        Arc::new(CallLog { notes: std::sync::Mutex::new(Vec::new()), note })
    }
}

impl<T: Send + 'static> Procedures for CallLog<T> {
    fn call(&self, space: &AtomSpace, _name: &str, _args: &[Handle]) -> atomweave::Result<Value> {
        let n = (self.note)(space)?;
        self.notes.lock().unwrap().push(n);
        Ok(Value::Truth(TruthValue::simple(1.0, 1.0)))
    }
}

#[test]
fn calls_that_leave_their_frame_untouched_share_one_frame_in_an_execution() {
    // The frame by address (holding it, even weakly, would keep it from being reused).
    let rec = CallLog::new(|space| Ok(format!("{space:?}").split(',').next().unwrap_or_default().to_string()));
    register("frames", rec.clone());
    let space = AtomSpace::new();
    for i in 0..5 {
        one(&space, &format!(r#"(Member (Concept "item {i}") (Concept "set"))"#));
    }
    let q = one(&space, r#"(Get (And (Member (Variable "$x") (Concept "set")) (Evaluation (GroundedPredicate "frames:any") (List (Variable "$x")))))"#);
    execute(&space, q).unwrap();
    let frames = rec.notes.lock().unwrap();
    assert_eq!(frames.len(), 5);
    assert!(frames.iter().all(|f| *f == frames[0]), "one frame, reused: {frames:?}");
}

#[test]
fn a_frame_a_call_set_a_value_in_is_not_given_to_the_next_call() {
    // Sets a value on a base atom through the frame, noting whether it was
    // there already (left by an earlier call).
    let rec = CallLog::new(|space| {
        let seen = space.add_node(CONCEPT_NODE, "marked")?;
        let key = space.add_node(PREDICATE_NODE, "mark")?;
        let was = space.get_value(seen, key).is_some();
        space.set_value(seen, key, Value::float(vec![1.0]))?;
        Ok(was)
    });
    register("marker", rec.clone());
    let space = AtomSpace::new();
    one(&space, r#"(Concept "marked")"#);
    one(&space, r#"(Predicate "mark")"#);
    for i in 0..3 {
        one(&space, &format!(r#"(Member (Concept "thing {i}") (Concept "set"))"#));
    }
    let q = one(&space, r#"(Get (And (Member (Variable "$x") (Concept "set")) (Evaluation (GroundedPredicate "marker:m") (List (Variable "$x")))))"#);
    execute(&space, q).unwrap();
    assert_eq!(*rec.notes.lock().unwrap(), [false, false, false], "each call starts from an empty frame");
    let marked = space.get_node(CONCEPT_NODE, "marked").unwrap();
    assert!(space.key_values(marked).is_empty(), "and nothing reaches the space");
}
