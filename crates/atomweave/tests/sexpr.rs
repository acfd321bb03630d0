//! The Atomese reader and writer: upstream-style files, both printed forms,
//! errors, and round trips of random atom sets.

mod common;

use atomweave::sexpr::{self, atom_to_string, dump, load_str, Form, Select};
use atomweave::types::*;
use atomweave::{AtomRead, AtomSpace, AtomTable, Handle, TruthValue, Type, Value};
use common::{atom_set, check_invariants};
use proptest::prelude::*;

const UPSTREAM_STYLE: &str = r#"
; An upstream-style data file: comments, both name forms, truth values,
; attention values, alists and nesting.
(EvaluationLink (stv 0.9 0.8)
  (PredicateNode "breathe")
  (ListLink
    (ConceptNode "birds" (av 0 0 0) (stv 0.5 0.1))   ; trailing comment
    (Concept "air")))

(InheritanceLink (Concept "cat") (ConceptNode "animal") (ctv 1 0.5 12))
(Member (Concept "cat") (Set (Concept "b") (Concept "a")))
(ConceptNode "valued"
   (alist (cons (PredicateNode "weight") (FloatValue 1 2.5 -3e-7))
          (cons (PredicateNode "names") (StringValue "x" "y \"quoted\""))
          (cons (PredicateNode "flags") (BoolValue #t #f))
          (cons (PredicateNode "links") (LinkValue (FloatValue 1) (Concept "cat")))
          (cons (PredicateNode "*-TruthValueKey-*") (SimpleTruthValue 0.25 0.75))))
(cog-set-tv! (Concept "air") (stv 0.3 0.4))
(NumberNode 42)
(ExistsLink (VariableNode "$x") (EvaluationLink (Predicate "p") (VariableNode "$x")))
"#;

#[test]
fn upstream_style_file_loads() {
    let mut t = AtomTable::new();
    let tops = load_str(&mut t, UPSTREAM_STYLE).unwrap();
    assert_eq!(tops.len(), 7);
    let birds = t.get_node(CONCEPT_NODE, "birds").unwrap();
    let air = t.get_node(CONCEPT_NODE, "air").unwrap();
    let breathe = t.get_node(PREDICATE_NODE, "breathe").unwrap();
    let list = t.get_link(LIST_LINK, &[birds, air]).unwrap();
    let eval = t.get_link(EVALUATION_LINK, &[breathe, list]).unwrap();
    assert_eq!(tops[0], eval);
    assert_eq!(t.get_tv(eval), Some(TruthValue::simple(0.9, 0.8)));
    assert_eq!(t.get_tv(birds), Some(TruthValue::simple(0.5, 0.1)));
    assert_eq!(t.get_tv(air), Some(TruthValue::simple(0.3, 0.4)));
    let av_key = t.get_node(PREDICATE_NODE, sexpr::AV_KEY).unwrap();
    assert_eq!(t.get_value(birds, av_key), Some(Value::float(vec![0.0, 0.0, 0.0])));
    assert_eq!(t.get_tv(tops[1]), Some(TruthValue::count(1.0, 0.5, 12.0)));
    let a = t.get_node(CONCEPT_NODE, "a").unwrap();
    let b = t.get_node(CONCEPT_NODE, "b").unwrap();
    assert!(t.get_link(SET_LINK, &[a, b]).is_some());
    let valued = t.get_node(CONCEPT_NODE, "valued").unwrap();
    assert_eq!(t.get_tv(valued), Some(TruthValue::simple(0.25, 0.75)));
    let weight = t.get_node(PREDICATE_NODE, "weight").unwrap();
    assert_eq!(t.get_value(valued, weight), Some(Value::float(vec![1.0, 2.5, -3e-7])));
    let names = t.get_node(PREDICATE_NODE, "names").unwrap();
    assert_eq!(t.get_value(valued, names), Some(Value::string(["x", "y \"quoted\""])));
    let flags = t.get_node(PREDICATE_NODE, "flags").unwrap();
    assert_eq!(t.get_value(valued, flags), Some(Value::bool(vec![true, false])));
    let cat = t.get_node(CONCEPT_NODE, "cat").unwrap();
    let links = t.get_node(PREDICATE_NODE, "links").unwrap();
    assert_eq!(t.get_value(valued, links), Some(Value::link(vec![Value::float(vec![1.0]), Value::Atom(cat)])));
    assert_eq!(t.get_node(PREDICATE_NODE, sexpr::TV_KEY), None, "the truth-value key maps onto the truth value");
    assert!(t.get_node(NUMBER_NODE, "42").is_some());
    assert_eq!(t.get_type(tops[6]), Some(EXISTS_LINK));
    check_invariants(&t);
}

#[test]
fn repl_form_matches_upstream() {
    let mut t = AtomTable::new();
    let tops = load_str(&mut t, UPSTREAM_STYLE).unwrap();
    assert_eq!(
        atom_to_string(&t, tops[0], Form::Repl).unwrap(),
        "(Evaluation (stv 0.9 0.8)\n  (Predicate \"breathe\")\n  (List\n    (Concept \"birds\" (stv 0.5 0.1))\n    (Concept \"air\" (stv 0.3 0.4))))"
    );
    let s = AtomSpace::new();
    let h = load_str(&mut &s, r#"(EvaluationLink (PredicateNode "breathe")(ListLink (ConceptNode "birds")(ConceptNode "air")))"#).unwrap()[0];
    let r = s.read().unwrap();
    assert_eq!(atom_to_string(&r, h, Form::Repl).unwrap(), "(Evaluation\n  (Predicate \"breathe\")\n  (List\n    (Concept \"birds\")\n    (Concept \"air\")))");
    assert_eq!(atom_to_string(&r, h, Form::Wire).unwrap(), r#"(EvaluationLink (PredicateNode "breathe")(ListLink (ConceptNode "birds")(ConceptNode "air")))"#);
    assert_eq!(atom_to_string(&r, Handle::from_u32(4_000_000), Form::Wire).unwrap(), "#<invalid #4000000>");
}

#[test]
fn wire_form_carries_values() {
    let mut t = AtomTable::new();
    let c = t.add_node(CONCEPT_NODE, "birds").unwrap();
    t.set_tv(c, TruthValue::simple(0.9, 0.8)).unwrap();
    assert_eq!(
        atom_to_string(&t, c, Form::Wire).unwrap(),
        r#"(ConceptNode "birds" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.9 0.8))))"#
    );
    let k = t.add_node(PREDICATE_NODE, "k").unwrap();
    t.set_value(c, k, Value::float(vec![1.0, 2.0])).unwrap();
    assert_eq!(
        atom_to_string(&t, c, Form::Wire).unwrap(),
        r#"(ConceptNode "birds" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.9 0.8))(cons (PredicateNode "k")(FloatValue 1 2))))"#
    );
    let l = t.add_link(LIST_LINK, &[c]).unwrap();
    t.set_tv(l, TruthValue::count(0.5, 0.25, 3.0)).unwrap();
    assert!(atom_to_string(&t, l, Form::Wire)
        .unwrap()
        .starts_with(r#"(ListLink (alist (cons (PredicateNode "*-TruthValueKey-*")(CountTruthValue 0.5 0.25 3))) (ConceptNode"#));
}

/// What `a_value_set_to_false_is_removed`'s text leaves.
fn check_removed(r: &impl AtomRead) {
    let a = r.get_node(CONCEPT_NODE, "a").unwrap();
    let key = |name| r.get_node(PREDICATE_NODE, name).unwrap();
    assert_eq!(r.get_value(a, key("k1")), Some(Value::float(vec![1.0])));
    assert_eq!(r.get_value(a, key("k2")), None);
    assert_eq!(r.get_tv(a), Some(TruthValue::DEFAULT));
    // Removing from an atom with no value makes the atom, as Scheme would.
    assert!(r.get_node(CONCEPT_NODE, "b").is_some());
}

/// `(cog-set-value! A KEY #f)` removes the value, as Scheme's does; under
/// the truth-value key it resets the truth value. The same through the
/// streaming loader (its recorded batches) as through `load_str`.
#[test]
fn a_value_set_to_false_is_removed() {
    let text = r#"
(Concept "a" (stv 0.5 0.5) (alist (cons (Predicate "k1") (FloatValue 1)) (cons (Predicate "k2") (FloatValue 2))))
(cog-set-value! (Concept "a") (Predicate "k2") #f)
(cog-set-value! (Concept "a") (PredicateNode "*-TruthValueKey-*") #f)
(cog-set-value! (Concept "b") (Predicate "k1") #f)
"#;
    let mut table = AtomTable::new();
    load_str(&mut table, text).unwrap();
    check_removed(&table);
    let mut streamed = AtomTable::new();
    sexpr::load(&mut streamed, text.as_bytes(), |_| {}).unwrap();
    check_removed(&streamed);
    let space = AtomSpace::new();
    sexpr::load(&mut &space, text.as_bytes(), |_| {}).unwrap();
    check_removed(&space.read().unwrap());
}

/// Endless input that never finishes a token (an unclosed string) or a
/// list is an error once it passes the reader's caps, not a buffer grown
/// until the process is killed for memory (a file store pointed at
/// `/dev/zero` once aborted the process).
#[test]
fn endless_input_is_an_error_not_endless_memory() {
    use std::io::Read;
    let string = std::io::Cursor::new(b"(Concept \"".to_vec()).chain(std::io::repeat(b'a'));
    let err = sexpr::load(&mut AtomTable::new(), std::io::BufReader::new(string), |_| {}).unwrap_err().error.to_string();
    assert!(err.contains("a token (a name, string or comment) longer than 256 MiB"), "{err}");
    // A list whose items never end: `(List 1 1 1 ...`.
    struct Items;
    impl Read for Items {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            for pair in out.chunks_exact_mut(2) {
                pair.copy_from_slice(b"1 ");
            }
            Ok(out.len() / 2 * 2)
        }
    }
    let list = std::io::Cursor::new(b"(List ".to_vec()).chain(Items);
    let err = sexpr::load(&mut AtomTable::new(), std::io::BufReader::new(list), |_| {}).unwrap_err().error.to_string();
    assert!(err.contains("an expression holding more than"), "{err}");
}

#[test]
fn errors_name_the_place_and_add_nothing_after() {
    let text = "(Concept \"a\")\n(Concept \"b\")\n(List (Concept \"c\")\n   (ConceptNod \"d\"))\n(Concept \"e\")\n";
    let mut t = AtomTable::new();
    let err = load_str(&mut t, text).unwrap_err();
    assert_eq!(err.loaded, 2);
    assert_eq!((err.error.line, err.error.col), (4, 4));
    let msg = err.to_string();
    assert!(msg.contains("unknown atom type `ConceptNod`"), "{msg}");
    assert!(msg.contains("2 expressions before it were loaded"), "{msg}");
    assert_eq!(t.size(), 2, "nothing of the bad expression (not even (Concept \"c\")) is added");
    assert!(t.get_node(CONCEPT_NODE, "c").is_none());

    let mut t = AtomTable::new();
    let err = load_str(&mut t, "(Concept \"a\"))").unwrap_err().to_string();
    assert!(err.contains("unbalanced"), "{err}");
    assert_eq!(t.size(), 1, "the complete expression before the stray `)` stays");

    for (bad, words) in [
        ("(Concept \"a\"", "never closed"),
        ("(Concept)", "needs a name"),
        ("(Concept \"a\" \"b\")", "unexpected"),
        ("(FloatValue 1)", "value type"),
        ("(Concept \"a\" (stv 1))", "2 numbers"),
        ("(Concept \"a\" (alist (foo)))", "cons"),
        ("(List (Concept \"a\") 42)", "expected an atom"),
        ("(Concept \"a\" (alist (cons (Predicate \"k\") (NoValue 1))))", "unknown value type"),
        ("\"just a string\"", "expected an atom"),
    ] {
        let mut t = AtomTable::new();
        let err = load_str(&mut t, bad).expect_err(bad).to_string();
        assert!(err.contains(words), "{bad}: {err}");
        assert_eq!(t.size(), 0, "{bad}");
    }
}

#[test]
fn streaming_load_reports_progress() {
    let text = UPSTREAM_STYLE.repeat(2000);
    let mut t = AtomTable::new();
    let mut calls = 0;
    let mut last = 0;
    let stats = sexpr::load(&mut t, std::io::BufReader::with_capacity(64, text.as_bytes()), |b| {
        assert!(b >= last);
        last = b;
        calls += 1;
    })
    .unwrap();
    assert_eq!(stats.expressions, 14_000);
    assert_eq!(stats.bytes, text.len() as u64);
    assert_eq!(calls, text.len() >> 18);
}

#[test]
fn dump_by_type_and_roots() {
    let mut t = AtomTable::new();
    load_str(&mut t, UPSTREAM_STYLE).unwrap();
    let mut out = Vec::new();
    let n = dump(&t, Select::Type(CONCEPT_NODE), Form::Wire, &mut out, |_| {}).unwrap();
    assert_eq!(n as usize, t.count_of_type(CONCEPT_NODE, true));
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), n as usize);
    let mut out = Vec::new();
    dump(&t, Select::Roots, Form::Wire, &mut out, |_| {}).unwrap();
    let mut again = AtomTable::new();
    load_str(&mut again, std::str::from_utf8(&out).unwrap()).unwrap();
    assert_eq!(atom_set(&again, true), atom_set(&t, true));
}

#[test]
fn a_dump_of_many_chunks_is_each_atom_in_order() {
    // More atoms than the writer's threads format at once, in several pools:
    // the text is each root written alone, in the order the table gives them.
    let mut t = AtomTable::new();
    let mut text = String::new();
    for i in 0..30_000 {
        text.push_str(&format!("(Inheritance (Concept \"c{i}\" (stv 0.5 0.25)) (Concept \"p{}\"))\n", i % 97));
    }
    load_str(&mut t, &text).unwrap();
    let roots: Vec<Handle> = t.all_atoms().filter(|&h| t.incoming_size(h) == Some(0)).collect();
    let expected: String = roots.iter().map(|&h| atom_to_string(&t, h, Form::Wire).unwrap() + "\n").collect();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut out = Vec::new();
        let mut reports = Vec::new();
        let n = pool.install(|| dump(&t, Select::Roots, Form::Wire, &mut out, |k| reports.push(k))).unwrap();
        assert_eq!(n as usize, roots.len());
        assert!(String::from_utf8(out).unwrap() == expected, "{threads} threads");
        assert!(reports.is_empty(), "fewer than 65,536 atoms: no progress call");
    }
}

// ----- round trips of random atom sets -----

#[derive(Clone, Debug)]
enum Gen {
    Node(usize, String, Option<(f64, f64)>),
    Link(usize, Vec<usize>, Option<(f64, f64, f64)>),
    Value(usize, u8, Vec<f64>),
}

const NODES: [Type; 4] = [CONCEPT_NODE, PREDICATE_NODE, WORD_NODE, VARIABLE_NODE];
const LINKS: [Type; 5] = [LIST_LINK, SET_LINK, EVALUATION_LINK, INHERITANCE_LINK, AND_LINK];

fn gen() -> impl Strategy<Value = Gen> {
    let name = prop_oneof!["[a-z]{1,8}", "\\PC{0,12}", Just("quote \" back \\ slash".to_string()), Just("new\nline\ttab".to_string()), Just(String::new()),];
    let tv = prop::option::of((0.0..1.0f64, 0.0..1.0f64));
    prop_oneof![
        3 => (0..NODES.len(), name, tv).prop_map(|(t, n, tv)| Gen::Node(t, n, tv)),
        3 => (0..LINKS.len(), prop::collection::vec(any::<usize>(), 0..4), prop::option::of((0.0..1.0f64, 0.0..1.0f64, 0.0..1e6f64)))
            .prop_map(|(t, m, tv)| Gen::Link(t, m, tv)),
        1 => (any::<usize>(), 0u8..3, prop::collection::vec(-1e300..1e300f64, 0..4)).prop_map(|(i, k, v)| Gen::Value(i, k, v)),
    ]
}

fn build(gens: &[Gen], with_values: bool) -> AtomTable {
    let mut t = AtomTable::new();
    let mut all: Vec<Handle> = Vec::new();
    for g in gens {
        match g {
            Gen::Node(ty, name, tv) => {
                let h = t.add_node(NODES[*ty], name).unwrap();
                if let Some((s, c)) = tv {
                    t.set_tv(h, TruthValue::simple(*s, *c)).unwrap();
                }
                all.push(h);
            }
            Gen::Link(ty, members, tv) => {
                let out: Vec<Handle> = members.iter().filter(|_| !all.is_empty()).map(|&i| all[i % all.len()]).collect();
                let h = t.add_link(LINKS[*ty], &out).unwrap();
                if let Some((m, c, n)) = tv {
                    t.set_tv(h, TruthValue::count(*m, *c, *n)).unwrap();
                }
                all.push(h);
            }
            Gen::Value(i, k, v) if with_values && !all.is_empty() => {
                let key = t.add_node(PREDICATE_NODE, &format!("key{k}")).unwrap();
                let target = all[i % all.len()];
                let value = match k {
                    0 => Value::float(v.clone()),
                    1 => Value::string(v.iter().map(|x| x.to_string())),
                    _ => Value::link(vec![Value::float(v.clone()), Value::Atom(key), Value::Void, Value::bool(vec![true])]),
                };
                t.set_value(target, key, value).unwrap();
            }
            Gen::Value(..) => {}
        }
    }
    t
}

fn round_trip(t: &AtomTable, form: Form) -> AtomTable {
    let mut text = Vec::new();
    dump(t, Select::Roots, form, &mut text, |_| {}).unwrap();
    let mut back = AtomTable::new();
    let text = String::from_utf8(text).unwrap();
    load_str(&mut back, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    back
}

/// A dump's lines, sorted.
fn dump_lines(t: &AtomTable) -> Vec<String> {
    let mut text = Vec::new();
    dump(t, Select::Roots, Form::Wire, &mut text, |_| {}).unwrap();
    let mut lines: Vec<String> = String::from_utf8(text).unwrap().lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn wire_form_round_trips(gens in prop::collection::vec(gen(), 1..60)) {
        let t = build(&gens, true);
        let back = round_trip(&t, Form::Wire);
        prop_assert_eq!(atom_set(&back, true), atom_set(&t, true));
    }

    #[test]
    fn repl_form_round_trips(gens in prop::collection::vec(gen(), 1..60)) {
        // The REPL form shows truth values but not other values.
        let t = build(&gens, false);
        let back = round_trip(&t, Form::Repl);
        prop_assert_eq!(atom_set(&back, true), atom_set(&t, true));
    }

    #[test]
    fn dumps_of_the_same_atoms_are_the_same_lines(gens in prop::collection::vec(gen(), 1..60)) {
        // Loaded top-level expression by expression in reverse, the atoms
        // get other handles; an unordered link's members (and a value's
        // keys) still print in the same order.
        let t = build(&gens, true);
        let text = dump_lines(&t);
        let mut back = AtomTable::new();
        for line in text.iter().rev() {
            load_str(&mut back, line).unwrap_or_else(|e| panic!("{e}\n{line}"));
        }
        prop_assert_eq!(dump_lines(&back), text);
    }

    #[test]
    fn reading_never_panics(text in "\\PC{0,200}") {
        let mut t = AtomTable::new();
        let _ = load_str(&mut t, &text);
        check_invariants(&t);
    }
}

#[test]
fn deep_input_is_refused_or_loaded_without_overflowing_the_stack() {
    // Run on a small thread stack, as a server worker would.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let deep_values = format!("(cog-set-value! (Concept \"a\") (Predicate \"k\") {}(FloatValue 1){})", "(LinkValue ".repeat(2000), ")".repeat(2000));
            let mut t = AtomTable::new();
            let err = load_str(&mut t, &deep_values).unwrap_err().to_string();
            assert!(err.contains("values nested deeper"), "{err}");
            assert_eq!(t.size(), 0);

            let depth = 4000;
            let deep_atoms = format!("{}(Concept \"leaf\"){}", "(List ".repeat(depth), ")".repeat(depth));
            let mut t = AtomTable::new();
            load_str(&mut t, &deep_atoms).unwrap();
            assert_eq!(t.size(), depth + 1);
            let leaf = t.get_node(CONCEPT_NODE, "leaf").unwrap();
            t.extract(leaf, true).unwrap();
            assert_eq!(t.size(), 0);

            let s = AtomSpace::new();
            load_str(&mut &s, &deep_atoms).unwrap();
            let leaf = s.get_node(CONCEPT_NODE, "leaf").unwrap();
            s.extract(leaf, true).unwrap();
            assert_eq!(s.size(), 0);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_decorated_truth_value_key_is_still_the_truth_value_key() {
    for text in [
        "(cog-set-value! (Concept \"x\") (Predicate \"*-TruthValueKey-*\" (stv 1 0)) (FloatValue 1 2))",
        "(Concept \"y\" (alist (cons (PredicateNode \"*-TruthValueKey-*\" (stv 1 0)) (StringValue \"s\"))))",
    ] {
        let mut t = AtomTable::new();
        let err = load_str(&mut t, text).unwrap_err().to_string();
        assert!(err.contains("truth value"), "{err}");
        assert_eq!(t.size(), 0, "{text}");
    }
}

#[test]
fn a_value_keyed_by_its_own_atom_prints_once_and_reads_back() {
    let mut t = AtomTable::new();
    let k = t.add_node(PREDICATE_NODE, "k").unwrap();
    t.set_value(k, k, Value::float(vec![1.0])).unwrap();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let key = t.add_link(LIST_LINK, &[a]).unwrap();
    t.set_value(a, key, Value::float(vec![2.0])).unwrap();
    t.set_value(key, a, Value::Atom(key)).unwrap();
    assert_eq!(atom_to_string(&t, k, Form::Wire).unwrap(), r#"(PredicateNode "k" (alist (cons (PredicateNode "k")(FloatValue 1))))"#);
    assert_eq!(
        atom_to_string(&t, key, Form::Wire).unwrap(),
        r#"(ListLink (alist (cons (ConceptNode "a")(ListLink (ConceptNode "a")))) (ConceptNode "a" (alist (cons (ListLink (ConceptNode "a"))(FloatValue 2)))))"#
    );
    let mut text = Vec::new();
    dump(&t, Select::Roots, Form::Wire, &mut text, |_| {}).unwrap();
    let mut back = AtomTable::new();
    load_str(&mut back, std::str::from_utf8(&text).unwrap()).unwrap();
    let (k2, a2) = (back.get_node(PREDICATE_NODE, "k").unwrap(), back.get_node(CONCEPT_NODE, "a").unwrap());
    let key2 = back.get_link(LIST_LINK, &[a2]).unwrap();
    assert_eq!(back.get_value(k2, k2), Some(Value::float(vec![1.0])));
    assert_eq!(back.get_value(a2, key2), Some(Value::float(vec![2.0])));
    assert_eq!(back.get_value(key2, a2), Some(Value::Atom(key2)));
}

#[test]
fn atoms_nested_deeper_than_any_stack_print_in_every_form() {
    // Built through the API, which does not bound nesting as the reader
    // does; printed on a small stack.
    let depth = 200_000;
    let mut t = AtomTable::new();
    let leaf = t.add_node(CONCEPT_NODE, "leaf").unwrap();
    let top = (0..depth).fold(leaf, |h, _| t.add_link(LIST_LINK, &[h]).unwrap());
    t.set_tv(leaf, TruthValue::simple(0.5, 0.5)).unwrap();
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let wire = atom_to_string(&t, top, Form::Wire).unwrap();
            assert!(wire.starts_with("(ListLink (ListLink "));
            assert!(wire.contains(r#"(ConceptNode "leaf" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.5 0.5))))"#));
            assert_eq!(wire.matches('(').count(), wire.matches(')').count());
            // The REPL form indents each level: its size grows with the
            // square of the depth, so it is checked on a shallower part.
            let part = t.outgoing(top).unwrap()[0];
            let part = (0..depth - 3000).fold(part, |h, _| t.outgoing(h).unwrap()[0]);
            let repl = atom_to_string(&t, part, Form::Repl).unwrap();
            assert_eq!(repl.lines().count(), 3000);
            assert!(repl.lines().last().unwrap().trim_start().starts_with(r#"(Concept "leaf" (stv 0.5 0.5))"#));
            let mut s = String::new();
            sexpr::write_structure(&t, top, &mut s).unwrap();
            assert_eq!(s.len(), "(ListLink ".len() * depth + r#"(ConceptNode "leaf")"#.len() + depth);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Members shared inside a link print at every place: a link built by
/// doubling 40 times prints to 2^40 leaves. The writers stop at
/// `MAX_PRINTED` with an error, for atoms, values holding them, LinkValues
/// holding one value many times, and dumps; error messages show a prefix.
#[test]
fn atoms_too_large_to_print_are_refused() {
    let t = AtomSpace::new();
    let mut dag = t.add_node(CONCEPT_NODE, "a").unwrap();
    for _ in 0..40 {
        dag = t.add_link(LIST_LINK, &[dag, dag]).unwrap();
    }
    assert_eq!(atom_to_string(&t, dag, Form::Repl), Err(sexpr::TooLarge));
    let mut s = String::new();
    assert_eq!(sexpr::write_value(&t, &Value::Atom(dag), &mut s), Err(sexpr::TooLarge));
    assert!(s.len() <= sexpr::MAX_PRINTED + 64, "stopped near the limit, not at {}", s.len());
    let mut v = Value::float(vec![1.0; 1000]);
    for _ in 0..40 {
        v = Value::link(vec![v.clone(), v]);
    }
    assert_eq!(sexpr::write_value(&t, &v, &mut String::new()), Err(sexpr::TooLarge));
    let err = dump(&t.read().unwrap(), Select::Roots, Form::Wire, std::io::sink(), |_| {}).unwrap_err();
    assert!(err.to_string().contains("prints to more than 256 MiB"), "{err}");
    let prefix = sexpr::atom_prefix(&t, dag, Form::Wire, 50);
    assert_eq!(prefix.chars().count(), 50);
    assert!(prefix.starts_with("(ListLink (ListLink") && prefix.ends_with("..."), "{prefix}");
    assert_eq!(sexpr::atom_prefix(&t, t.get_node(CONCEPT_NODE, "a").unwrap(), Form::Wire, 50), r#"(ConceptNode "a")"#);
}

/// A REPL transcript saved as data: the loader's error names what it met
/// with the colour codes escaped, not replayed on the user's terminal.
#[test]
fn load_errors_escape_colour_codes() {
    let t = AtomSpace::new();
    let text = "(Concept \"a\")\n\u{1b}[0;34mscm> \u{1b}[0m(Concept \"b\")\n";
    let err = load_str(&mut &t, text).unwrap_err().to_string();
    assert!(!err.chars().any(char::is_control), "{err:?}");
    assert!(err.contains("\\x1b[0;34mscm>") || err.contains("\\x1b[0"), "{err}");
    assert!(err.contains("looks like a REPL transcript"), "{err}");
    let err = load_str(&mut &t, "scm> (Concept \"a\")\n").unwrap_err().to_string();
    assert!(err.contains("looks like a REPL transcript"), "{err}");
    let err = load_str(&mut &t, "hello").unwrap_err().to_string();
    assert!(!err.contains("transcript"), "{err}");
}

/// Scheme where an atom should be (a preamble, a definition): the error
/// says the file is a program, and how to run it.
#[test]
fn scheme_in_data_is_named_as_such() {
    let t = AtomSpace::new();
    for (text, form) in
        [("(use-modules (opencog))", "use-modules"), ("(setlocale LC_CTYPE \"\")", "setlocale"), ("(define (s a b) (Similarity a b))", "define")]
    {
        let err = load_str(&mut &t, text).unwrap_err().to_string();
        assert!(err.contains(&format!("`{form}` is Scheme, not Atomese data")) && err.contains("guile -l FILE"), "{err}");
    }
    let err = load_str(&mut &t, "(Conceptt \"a\")").unwrap_err().to_string();
    assert!(err.contains("unknown atom type `Conceptt`"), "{err}");
}

#[test]
fn an_atoms_values_print_in_key_content_order() {
    let build = |keys: [&str; 3]| {
        let mut t = AtomTable::new();
        let a = t.add_node(CONCEPT_NODE, "a").unwrap();
        for k in keys {
            let key = t.add_node(PREDICATE_NODE, k).unwrap();
            t.set_value(a, key, Value::string([k])).unwrap();
        }
        dump_lines(&t)
    };
    let lines = build(["k2", "k0", "k1"]);
    assert_eq!(lines, build(["k1", "k2", "k0"]));
    assert!(lines[0].contains(r#"(cons (PredicateNode "k0")(StringValue "k0"))(cons (PredicateNode "k1")"#), "{lines:?}");
}
