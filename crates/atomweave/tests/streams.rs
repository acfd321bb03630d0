//! Values that change as they are read: streams (RandomStream, FormulaStream,
//! FutureStream, made by SetValue of a schema or by a PromiseLink) and
//! queues (QueueValue, what MeetLink and QueryLink give).

use atomweave::query::{execute_value, value_numbers};
use atomweave::sexpr::{load_str, write_value};
use atomweave::{types, AtomSpace, Handle, QueueValue, StreamValue, Value};

fn one(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Float(x) => x.to_vec(),
        other => panic!("expected a FloatValue, got {other:?}"),
    }
}

#[test]
fn a_schema_set_by_set_value_is_run_at_each_reading() {
    let s = AtomSpace::new();
    let src = one(&s, r#"(Anchor "a" (alist (cons (Predicate "v") (FloatValue 1 2 3))))"#);
    let key = one(&s, r#"(Predicate "v")"#);
    one(&s, r#"(Define (DefinedSchema "double") (Lambda (Variable "$x") (Times (Variable "$x") (Number 2))))"#);
    let set = one(&s, r#"(SetValue (Anchor "b") (Predicate "w") (DefinedSchema "double") (FloatValueOf (Anchor "a") (Predicate "v")))"#);
    let Value::Stream(stream) = execute_value(&s, set).unwrap() else { panic!("SetValue of a schema gives a stream") };
    assert_eq!(stream.stream_type(), types::FORMULA_STREAM);
    assert_eq!(floats(&stream.sample().unwrap()), [2.0, 4.0, 6.0]);
    // The input changes; the next reading follows it.
    s.set_value(src, key, Value::float([10.0])).unwrap();
    assert_eq!(floats(&stream.sample().unwrap()), [20.0]);
    // Read where it is stored, by FloatValueOf inside arithmetic.
    let sum = one(&s, r#"(Plus (Number 1) (FloatValueOf (Anchor "b") (Predicate "w")))"#);
    assert_eq!(floats(&execute_value(&s, sum).unwrap()), [21.0]);
}

#[test]
fn a_future_stream_gives_a_link_value_of_each_result() {
    let s = AtomSpace::new();
    let p = one(&s, r#"(Promise (Type "FutureStream") (Plus (Number 1) (Number 2)) (Concept "data"))"#);
    let Value::Stream(st) = execute_value(&s, p).unwrap() else { panic!("a Promise gives a stream") };
    let three = one(&s, r#"(Number 3)"#);
    let data = one(&s, r#"(Concept "data")"#);
    assert_eq!(st.sample().unwrap(), Value::link(vec![Value::Atom(three), Value::Atom(data)]));
    // Printed as what it is made of: printing runs nothing.
    let mut text = String::new();
    write_value(&s, &Value::Stream(st), &mut text).unwrap();
    assert_eq!(text, r#"(FutureStream (PlusLink (NumberNode "1")(NumberNode "2"))(ConceptNode "data"))"#);
}

#[test]
fn a_random_stream_draws_fresh_numbers_in_the_unit_interval() {
    let s = AtomSpace::new();
    let st = StreamValue::random(64);
    let (a, b) = (floats(&st.sample().unwrap()), floats(&st.sample().unwrap()));
    assert_eq!(a.len(), 64);
    assert!(a.iter().chain(&b).all(|x| (0.0..1.0).contains(x)));
    assert_ne!(a, b, "two readings of 64 draws differ");
    let h = one(&s, r#"(Concept "coin")"#);
    let key = one(&s, r#"(Predicate "k")"#);
    s.set_value(h, key, Value::Stream(st)).unwrap();
    let stream_of = one(&s, r#"(StreamValueOf (Concept "coin") (Predicate "k"))"#);
    assert_eq!(floats(&execute_value(&s, stream_of).unwrap()).len(), 64);
}

#[test]
fn a_stream_whose_space_is_gone_says_so() {
    let s = AtomSpace::new();
    let h = one(&s, r#"(Plus (Number 1) (Number 1))"#);
    let st = StreamValue::computed(types::FORMULA_STREAM, &s, vec![h]).unwrap();
    assert_eq!(floats(&st.sample().unwrap()), [2.0]);
    drop(s);
    assert!(st.sample().unwrap_err().to_string().contains("space"));
}

#[test]
fn stream_value_of_takes_a_queue_from_its_front() {
    let s = AtomSpace::new();
    let (a, b) = (one(&s, r#"(Concept "first")"#), one(&s, r#"(Concept "second")"#));
    let holder = one(&s, r#"(Anchor "q")"#);
    let key = one(&s, r#"(Predicate "k")"#);
    s.set_value(holder, key, Value::Queue(QueueValue::new([Value::Atom(a), Value::Atom(b)]))).unwrap();
    let pop = one(&s, r#"(StreamValueOf (Anchor "q") (Predicate "k"))"#);
    assert_eq!(execute_value(&s, pop).unwrap(), Value::Atom(a));
    assert_eq!(execute_value(&s, pop).unwrap(), Value::Atom(b));
    let err = execute_value(&s, pop).unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
}

#[test]
fn a_meet_gives_a_queue_of_link_values_for_several_variables() {
    let s = AtomSpace::new();
    one(&s, r#"(Evaluation (Predicate "has") (Concept "dog") (Concept "tail"))"#);
    let meet = one(&s, r#"(Meet (VariableList (Variable "$a") (Variable "$b")) (Present (Evaluation (Predicate "has") (Variable "$a") (Variable "$b"))))"#);
    let Value::Queue(q) = execute_value(&s, meet).unwrap() else { panic!("a Meet gives a QueueValue") };
    let (dog, tail) = (one(&s, r#"(Concept "dog")"#), one(&s, r#"(Concept "tail")"#));
    assert_eq!(q.snapshot(), [Value::link(vec![Value::Atom(dog), Value::Atom(tail)])]);
    // No ListLink of the tuple was added.
    assert!(s.get_link(types::LIST_LINK, &[dog, tail]).is_none());
    assert_eq!(value_numbers(&s, &Value::float([1.5]), meet).unwrap(), [1.5]);
}

#[test]
fn a_stream_that_reads_itself_is_an_error_not_a_crash() {
    let s = AtomSpace::new();
    let set = one(&s, r#"(SetValue (Concept "a") (Predicate "k") (Promise (Type "FormulaStream") (ValueOf (Concept "a") (Predicate "k"))))"#);
    let Value::Stream(st) = execute_value(&s, set).unwrap() else { panic!("a Promise gives a stream") };
    let err = st.sample().unwrap_err().to_string();
    assert!(err.contains("nest"), "{err}");
}

#[test]
fn code_nested_through_definitions_stops_at_the_limit() {
    // 100,000 Floors deep, reached through a DefinedSchema (so no check of
    // the query's own depth sees it): an error, not an overflow.
    let s = AtomSpace::new();
    let mut h = s.add_node(types::NUMBER_NODE, "1").unwrap();
    for _ in 0..100_000 {
        h = s.add_link(types::FLOOR_LINK, &[h]).unwrap();
    }
    let name = s.add_node(types::DEFINED_SCHEMA_NODE, "deep").unwrap();
    s.add_link(types::DEFINE_LINK, &[name, h]).unwrap();
    let q = one(&s, r#"(Plus (Number 1) (DefinedSchema "deep"))"#);
    let err = execute_value(&s, q).unwrap_err().to_string();
    assert!(err.contains("nest"), "{err}");
}

#[test]
fn a_child_takes_from_its_own_copy_of_a_queue_and_a_read_only_space_takes_nothing() {
    let base = AtomSpace::new();
    let (a, b) = (one(&base, r#"(Concept "first")"#), one(&base, r#"(Concept "second")"#));
    let holder = one(&base, r#"(Anchor "q")"#);
    let key = one(&base, r#"(Predicate "k")"#);
    base.set_value(holder, key, Value::Queue(QueueValue::new([Value::Atom(a), Value::Atom(b)]))).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let pop = one(&child, r#"(StreamValueOf (Anchor "q") (Predicate "k"))"#);
    assert_eq!(execute_value(&child, pop).unwrap(), Value::Atom(a));
    assert_eq!(execute_value(&child, pop).unwrap(), Value::Atom(b));
    let Some(Value::Queue(q)) = base.get_value(holder, key) else { panic!("the base keeps its queue") };
    assert_eq!(q.len(), 2, "the base's queue is untouched");
    let base_pop = one(&base, r#"(StreamValueOf (Anchor "q") (Predicate "k"))"#);
    base.set_read_only(true);
    let err = execute_value(&base, base_pop).unwrap_err().to_string();
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(q.len(), 2);
}

#[test]
fn a_formula_truth_value_set_as_a_truth_value_is_run_at_each_reading() {
    use atomweave::TruthValue;
    let s = AtomSpace::new();
    let a = one(&s, r#"(Concept "A" (stv 0.5 0.8))"#);
    let b = one(&s, r#"(Concept "B")"#);
    let set = one(&s, r#"(SetTV (Concept "B") (PromisePredicate (Times (StrengthOf (Concept "A")) (Number 0.5)) (ConfidenceOf (Concept "A"))))"#);
    assert!(matches!(execute_value(&s, set).unwrap(), Value::Stream(st) if st.stream_type() == types::FORMULA_TRUTH_VALUE));
    assert_eq!(s.get_tv(b), Some(TruthValue::simple(0.25, 0.8)));
    s.set_tv(a, TruthValue::simple(1.0, 0.5)).unwrap();
    assert_eq!(s.get_tv(b), Some(TruthValue::simple(0.5, 0.5)));
    // The truth-value key gives the stream itself; a number pair replaces it.
    let key = s.add_node(types::PREDICATE_NODE, "*-TruthValueKey-*").unwrap();
    assert!(matches!(s.get_value(b, key), Some(Value::Stream(_))));
    assert!(s.increment_count(b, 1.0).unwrap_err().to_string().contains("FormulaTruthValue"));
    s.set_tv(b, TruthValue::simple(0.1, 0.2)).unwrap();
    s.set_tv(a, TruthValue::simple(0.9, 0.9)).unwrap();
    assert_eq!(s.get_tv(b), Some(TruthValue::simple(0.1, 0.2)));
    // Only a FormulaTruthValue can be a truth value.
    assert!(s.set_tv_stream(b, StreamValue::random(2)).is_err());
}

#[test]
fn a_dump_writes_a_truth_value_stream_as_its_reading() {
    use atomweave::sexpr::{dump_space, Form, Select};
    let s = AtomSpace::new();
    one(&s, r#"(Concept "A" (stv 0.5 0.8))"#);
    let set = one(&s, r#"(SetTV (Concept "B") (PromisePredicate (StrengthOf (Concept "A")) (ConfidenceOf (Concept "A"))))"#);
    execute_value(&s, set).unwrap();
    // No read-locked view while a truth value runs code to be read.
    assert!(s.read().is_none());
    let mut out = Vec::new();
    dump_space(&s, Select::Type(types::CONCEPT_NODE), Form::Wire, &mut out, |_| {}).unwrap();
    let text = String::from_utf8(out).unwrap();
    let b_line = text.lines().find(|l| l.contains("\"B\"")).unwrap();
    assert!(b_line.contains("0.5") && b_line.contains("0.8"), "{b_line}");
}
