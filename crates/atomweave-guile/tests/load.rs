//! Files that mix Scheme with data (`load_file`): the core's reader and
//! Guile hand the file back and forth, and the atoms are those Guile alone
//! makes of the file (`primitive-load`, what `guile -l` does), whatever the
//! mix, the line breaks, the comments and the names.

use atomweave::sexpr::{dump_space, Form, LoadOptions, Place, Select};
use atomweave::AtomSpace;
use atomweave_guile::{boot, eval, load_file, register_space, select_space, with_guile};
use proptest::prelude::*;

/// One piece of a generated file.
#[derive(Clone, Debug)]
enum Piece {
    /// A node, with a truth value or not.
    Node(usize, Option<(u8, u8)>),
    /// A link of two nodes, written over one line or two.
    Link(usize, usize, usize, bool),
    /// `(define cN (Concept ...))`, then data that uses cN.
    Variable(usize),
    /// A call of the file's helper procedure.
    Call(usize),
    /// Scheme that adds nothing, or a comment.
    Quiet(usize),
}

const NAMES: [&str; 6] = ["a", "b", "猫", "quote \\\" here", "tab\\there", "(paren)"];
const LINKS: [&str; 4] = ["ListLink", "SetLink", "Inheritance", "EvaluationLink"];
const QUIET: [&str; 6] = [
    "(define v 1)",
    "; a line comment (Concept \"no\")",
    "#| a block\n(Concept \"no\") |#",
    "#;(Concept \"skipped\")",
    "(let ((y 2)) (* y y))",
    "(if #f (Concept \"never\"))",
];
const SEPARATORS: [&str; 5] = ["\n", " ", "\t", "\r\n", ""];

fn piece() -> impl Strategy<Value = Piece> {
    let n = 0..NAMES.len();
    prop_oneof![
        (n.clone(), prop::option::of((0u8..10, 0u8..10))).prop_map(|(i, tv)| Piece::Node(i, tv)),
        (0..LINKS.len(), n.clone(), n.clone(), any::<bool>()).prop_map(|(t, a, b, split)| Piece::Link(t, a, b, split)),
        n.clone().prop_map(Piece::Variable),
        n.prop_map(Piece::Call),
        (0..QUIET.len()).prop_map(Piece::Quiet),
    ]
}

fn text(pieces: &[(Piece, usize)]) -> String {
    let mut s = String::from("#!\na script header\n!#\n(define (helper x) (MemberLink (ConceptNode x) (ConceptNode \"helper\")))\n");
    for (i, (p, sep)) in pieces.iter().enumerate() {
        let node = |k: usize| format!("(ConceptNode \"{}\")", NAMES[k]);
        match p {
            Piece::Node(k, None) => s.push_str(&node(*k)),
            Piece::Node(k, Some((m, c))) => s.push_str(&format!("(ConceptNode \"{}\" (stv 0.{m} 0.{c}))", NAMES[*k])),
            Piece::Link(t, a, b, split) => s.push_str(&format!("({} {}{}{})", LINKS[*t], node(*a), if *split { "\n  " } else { " " }, node(*b))),
            Piece::Variable(k) => s.push_str(&format!("(define c{i} {})\n(ListLink c{i} (ConceptNode \"with a variable\"))", node(*k))),
            Piece::Call(k) => s.push_str(&format!("(helper \"{}\")", NAMES[*k])),
            Piece::Quiet(k) => s.push_str(QUIET[*k]),
        }
        // A line comment ends at the end of its line.
        s.push_str(if matches!(p, Piece::Quiet(1)) { "\n" } else { SEPARATORS[*sep] });
    }
    s
}

fn lines(space: &AtomSpace) -> Vec<String> {
    let mut out = Vec::new();
    dump_space(space, Select::Roots, Form::Wire, &mut out, |_| {}).unwrap();
    let mut lines: Vec<String> = String::from_utf8(out).unwrap().lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_mixed_file_loads_as_guile_loads_it(pieces in prop::collection::vec((piece(), 0..SEPARATORS.len()), 0..40)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.scm");
        std::fs::write(&path, text(&pieces)).unwrap();
        boot(AtomSpace::new());
        let (mixed, guile) = (AtomSpace::new(), AtomSpace::new());
        load_file(&mixed, &path, Place::START, &mut LoadOptions::default(), |_| {}).unwrap_or_else(|e| panic!("{e}\n{}", text(&pieces)));
        let index = register_space(guile.clone());
        with_guile(|| {
            select_space(index);
            eval(&format!("(primitive-load {:?})", path.to_str().unwrap())).unwrap();
        });
        prop_assert_eq!(lines(&mixed), lines(&guile), "{}", text(&pieces));
    }
}

/// Guile's port reads invalid UTF-8 as U+FFFD; so does the core's reader.
/// Every place is reported, in the data and in the Scheme Guile reads; a
/// strict load refuses the file there, before Guile runs anything.
#[test]
fn invalid_utf8_is_read_as_guile_reads_it_and_reported_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.scm");
    std::fs::write(&path, b"(Concept \"a\xFF\")\n(define (f x) (Concept x))\n(f \"b\xFE\")\n(Concept \"c\xC3\")\n").unwrap();
    boot(AtomSpace::new());
    let (mixed, guile) = (AtomSpace::new(), AtomSpace::new());
    let options = &mut LoadOptions::default();
    load_file(&mixed, &path, Place::START, options, |_| {}).unwrap();
    let index = register_space(guile.clone());
    with_guile(|| {
        select_space(index);
        eval(&format!("(primitive-load {:?})", path.to_str().unwrap())).unwrap();
    });
    assert_eq!(lines(&mixed), lines(&guile));
    assert!(lines(&mixed).contains(&"(ConceptNode \"b\u{FFFD}\")".to_string()), "{:?}", lines(&mixed));
    let places: Vec<_> = options.invalid_utf8.places.iter().map(|b| (b.pos.line, b.pos.col, b.byte)).collect();
    assert_eq!(places, [(1, 12, 0xFF), (3, 6, 0xFE), (4, 12, 0xC3)]);
    assert_eq!(options.invalid_utf8.count, 3);

    // Strict, with the only bad byte in Scheme: the data before it is
    // loaded (as at any bad expression), the Scheme is not run.
    std::fs::write(&path, b"(Concept \"a\")\n(define (f x) (Concept x))\n(f \"b\xFE\")\n(Concept \"c\")\n").unwrap();
    let strict = AtomSpace::new();
    let e = load_file(&strict, &path, Place::START, &mut LoadOptions { strict: true, ..LoadOptions::default() }, |_| {}).unwrap_err();
    assert_eq!((e.error.line, e.error.col, e.loaded), (3, 6, 1), "{e}");
    assert!(e.error.message.contains("invalid UTF-8"), "{e}");
    assert_eq!(lines(&strict), ["(ConceptNode \"a\")"]);
}

#[test]
fn a_files_exit_stops_its_load_with_an_error_where_the_process_is_shared() {
    // Not `exit_on_quit`: as in a server or Python, the process goes on.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exits.scm");
    std::fs::write(&path, "(Concept \"a\")\n(define x 1)\n(exit 3)\n(Concept \"b\")\n").unwrap();
    boot(AtomSpace::new());
    let space = AtomSpace::new();
    let e = load_file(&space, &path, Place::START, &mut LoadOptions::default(), |_| {}).unwrap_err();
    assert_eq!(e.error.line, 3, "{e}");
    assert!(e.error.message.contains("quit"), "{e}");
    assert_eq!(lines(&space), ["(ConceptNode \"a\")"]);
}
