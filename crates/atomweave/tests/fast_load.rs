//! The loader reads plain data through a fast path that makes no expression
//! tree, and everything else through the general reader. The two must not
//! differ in anything a user sees: the same atoms and values, the same
//! counts, the same error at the same place, wherever the input's chunks
//! end.

mod common;

use std::io::{BufRead, BufReader, Read};

use atomweave::sexpr::{self, LoadError, LoadOptions, LoadStats, Place};
use atomweave::AtomTable;
use common::{atom_set, check_invariants};
use proptest::prelude::*;

/// A node's expression, sometimes with something the fast path declines.
fn node() -> impl Strategy<Value = String> {
    let ty = prop_oneof![
        4 => Just("Concept"),
        2 => Just("ConceptNode"),
        1 => Just("PredicateNode"),
        1 => Just("Number"),
        1 => Just("NoSuchNode"),
        1 => Just("List"),
    ];
    let name = prop_oneof![
        6 => "[a-c]{1,2}".prop_map(|s| format!("\"{s}\"")),
        1 => Just("\"q\\\"uo\\\\te\"".to_owned()),
        1 => Just("\"ünï ✓\"".to_owned()),
        1 => Just("\"bad\\qescape\"".to_owned()),
        1 => Just("3".to_owned()),
        1 => Just(String::new()),
        1 => Just("\"a\" \"b\"".to_owned()),
    ];
    (ty, name, prop::collection::vec(attached(), 0..3)).prop_map(|(t, n, vals)| format!("({t} {n}{})", vals.concat()))
}

/// A number as data files write them, and some they should not.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u32..1000).prop_map(|n| format!("0.{n}")),
        1 => Just("1".to_owned()),
        1 => Just("-2.5e-3".to_owned()),
        1 => Just("+nan.0".to_owned()),
        1 => Just("-inf.0".to_owned()),
        1 => Just("1e999".to_owned()),
        1 => Just(".5".to_owned()),
        1 => Just("x".to_owned()),
        1 => Just("#;1 2".to_owned()),
    ]
}

/// A value written inside an atom, with the space before it.
fn attached() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        3 => Just("(PredicateNode \"*-TruthValueKey-*\")"),
        1 => Just("(Predicate \"*-TruthValueKey-*\" (stv 1 1))"),
        3 => Just("(Predicate \"k\")"),
        1 => Just("(Predicate \"k2\" (stv 0.5 0.5))"),
        1 => Just("(List (Concept \"k3\"))"),
        1 => Just("\"k\""),
    ];
    let value = prop_oneof![
        3 => (number(), number()).prop_map(|(a, b)| format!("(SimpleTruthValue {a} {b})")),
        1 => (number(), number(), number()).prop_map(|(a, b, c)| format!("(ctv {a} {b} {c})")),
        2 => prop::collection::vec(number(), 0..3).prop_map(|n| format!("(FloatValue {})", n.join(" "))),
        2 => Just("(StringValue \"s\" \"t\\n\")".to_owned()),
        1 => Just("(StringValue 1)".to_owned()),
        1 => Just("(LinkValue (Concept \"lv\") (FloatValue 1))".to_owned()),
        1 => Just("(Concept \"as-value\")".to_owned()),
        1 => Just("(BoolValue #t)".to_owned()),
    ];
    let pairs =
        prop::collection::vec((key, value), 0..3).prop_map(|pairs| pairs.into_iter().map(|(k, v)| format!("(cons {k} {v})")).collect::<Vec<_>>().concat());
    prop_oneof![
        4 => (number(), number()).prop_map(|(a, b)| format!(" (stv {a} {b})")),
        1 => (number(), number(), number()).prop_map(|(a, b, c)| format!(" (ctv {a} {b} {c})")),
        1 => Just(" (stv 1)".to_owned()),
        1 => Just(" (av 1 2 3)".to_owned()),
        1 => Just(" (cog-new-stv 0.5 0.5)".to_owned()),
        3 => pairs.prop_map(|p| format!(" (alist {p})")),
        1 => Just(" (alist (cons (Predicate \"k\")))".to_owned()),
    ]
}

/// An atom's expression: nodes, and links over atoms with values written
/// before, between and after their members.
fn atom() -> impl Strategy<Value = String> {
    node().prop_recursive(4, 24, 4, |inner| {
        let ty = prop_oneof![
            4 => Just("List"),
            2 => Just("Inheritance"),
            2 => Just("Evaluation"),
            1 => Just("SetLink"),
            1 => Just("Concept"),
            1 => Just("NoSuchLink"),
        ];
        let member = prop_oneof![8 => inner, 2 => attached(), 1 => Just("\"str\"".to_owned()), 1 => Just("'x".to_owned())];
        (ty, prop::collection::vec(member, 0..4)).prop_map(|(t, m)| format!("({t} {})", m.join(" ")))
    })
}

/// Space between expressions.
fn gap() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just("\n".to_owned()),
        1 => Just("  \t\r\n".to_owned()),
        1 => Just("\n; a comment (Concept \"not\")\n".to_owned()),
        1 => Just("\n#| block |#\n".to_owned()),
        1 => Just(String::new()),
        1 => Just(";; no newline after".to_owned()),
    ]
}

/// A top-level expression.
fn top() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => atom(),
        1 => Just("(cog-set-tv! (Concept \"a\") (stv 0.1 0.2))".to_owned()),
        1 => Just("(define x 1)".to_owned()),
        1 => Just("(List (Concept \"unclosed\")".to_owned()),
        1 => Just(")".to_owned()),
        1 => Just("Concept".to_owned()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    (prop::collection::vec((gap(), top()), 0..12), gap()).prop_map(|(items, end)| {
        let mut s: String = items.into_iter().map(|(g, t)| g + &t).collect();
        s.push_str(&end);
        s
    })
}

fn load(text: &str, general_reader: bool, capacity: usize, one_thread: bool) -> (Result<LoadStats, LoadError>, AtomTable) {
    let mut table = AtomTable::new();
    let mut options = LoadOptions { general_reader, one_thread, ..LoadOptions::default() };
    let done = sexpr::load_from(&mut table, BufReader::with_capacity(capacity, text.as_bytes()), Place::START, &mut options, |_| {});
    (done, table)
}

fn same_either_way(text: &str, capacity: usize) {
    let (expected, reference) = load(text, true, 1 << 16, true);
    for one_thread in [true, false] {
        let (got, table) = load(text, false, capacity, one_thread);
        assert_eq!(got, expected, "{text:?}");
        assert_eq!(atom_set(&table, true), atom_set(&reference, true), "{text:?}");
        check_invariants(&table);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_fast_path_reads_as_the_general_reader(text in text(), capacity in prop_oneof![Just(1usize), 2..64usize, Just(1 << 16)]) {
        same_either_way(&text, capacity);
    }
}

#[test]
fn data_files_shapes_read_alike() {
    let cases = [
        "(Concept \"a\")",
        "(Evaluation (stv 0.9 0.8)\n  (Predicate \"p\")\n  (List\n    (Concept \"a\" (stv 0.5 0.1))\n    (Concept \"b\")))",
        "(ConceptNode \"birds\" (alist (cons (PredicateNode \"*-TruthValueKey-*\")(SimpleTruthValue 0.5 0.1))))",
        "(ListLink (ConceptNode \"x\" (alist (cons (PredicateNode \"w\")(FloatValue 1 -1.5))(cons (PredicateNode \"l\")(StringValue \"a label\" \"x\")))))",
        "(Member (ctv 1 0 12) (Concept \"odd \\\"quoted\\\" \\\\ name\") (Concept \"ünïcödé ✓\"))",
        // Values set twice: the last stays.
        "(Concept \"a\" (stv 0.1 0.1))\n(Concept \"a\" (stv 0.2 0.2))\n(List (Concept \"a\" (stv 0.3 0.3)) (stv 1 1))",
        // A key with values of its own, and an atom as a key.
        "(Concept \"a\" (alist (cons (Predicate \"k\" (alist (cons (Predicate \"k\") (FloatValue 1)))) (FloatValue 2))))",
        // Deeper than the fast path goes.
        &format!("{}(Concept \"deep\"){}", "(List ".repeat(100), ")".repeat(100)),
    ];
    for text in cases {
        for capacity in [1, 7, 1 << 16] {
            same_either_way(text, capacity);
        }
    }
    // And the errors, with line and column, of what each declines.
    let (got, _) = load("(Concept \"a\")\n  (Concept \"b\" (stv 1 x))", false, 3, true);
    let err = got.unwrap_err();
    assert_eq!((err.loaded, err.error.line, err.at.offset), (1, 2, 13));
}

/// A connection that delivers some text, fails once, then reports the end
/// (as a reset TCP stream does): the failure is the load's error, whichever
/// reader met it first.
struct FailsOnce {
    text: &'static [u8],
    failed: bool,
}

impl Read for FailsOnce {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.text[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for FailsOnce {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.text.is_empty() && !self.failed {
            self.failed = true;
            return Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer"));
        }
        Ok(self.text)
    }
    fn consume(&mut self, n: usize) {
        self.text = &self.text[n..];
    }
}

#[test]
fn a_read_error_met_by_the_fast_path_is_the_loads_error() {
    for text in ["(Concept \"a\")\n", "(Concept \"a\")\n(List (Concept \"b\")"] {
        let results: Vec<_> = [false, true]
            .into_iter()
            .map(|general_reader| {
                let mut table = AtomTable::new();
                let mut options = LoadOptions { general_reader, one_thread: true, ..LoadOptions::default() };
                let input = FailsOnce { text: text.as_bytes(), failed: false };
                sexpr::load_from(&mut table, input, Place::START, &mut options, |_| {}).map(|s| s.expressions)
            })
            .collect();
        assert_eq!(results[0], results[1], "{text:?}");
        let err = results[0].clone().unwrap_err();
        assert!(err.error.message.contains("cannot read input: reset by peer"), "{err}");
        assert_eq!(err.loaded, 1);
    }
}
