//! The streaming loader records expressions a batch at a time and adds each
//! batch whole (nodes, then links by height, then values) while another
//! thread reads on: it must leave what adding each expression in turn
//! leaves, and a bad expression must stop it exactly there, wherever the
//! batches fall.

mod common;

use std::fmt::Write;
use std::io::BufReader;

use atomweave::sexpr::{self, load_str, LoadOptions, Place};
use atomweave::{AtomRead, AtomSpace, AtomTable};
use common::{atom_set, check_invariants};

/// `n` expressions of every shape the reader takes, named from `tag`;
/// later ones set again what earlier ones set (in other batches), values
/// hold atoms that no other expression makes, and StateLinks share keys.
fn varied(tag: &str, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let (a, b) = (i % 997, (i * 7) % 1009);
        let line = match i % 10 {
            0 => format!("(Concept \"{tag}{a}\" (stv 0.{a} 0.5))"),
            1 => format!("(Inheritance (Concept \"{tag}{a}\") (Concept \"{tag}{b}\"))"),
            2 => format!("(Set (Concept \"{tag}{b}\") (Concept \"{tag}{a}\") (List (Predicate \"p{a}\")))"),
            3 => format!("(cog-set-tv! (Concept \"{tag}{b}\") (ctv 1 0.5 {i}))"),
            4 => format!("(Concept \"{tag}{a}\" (alist (cons (Predicate \"k\") (LinkValue (Concept \"v{i}\") (FloatValue {i})))))"),
            // Every fourth of these removes (#f) what the one 30 before set.
            5 if i % 40 == 35 => format!("(cog-set-value! (Concept \"{tag}{}\") (Predicate \"k{}\") #f)", (i - 30) % 997, ((i - 30) * 7) % 1009),
            5 => format!("(cog-set-value! (Concept \"{tag}{a}\") (Predicate \"k{b}\") (List (Concept \"w{i}\")))"),
            6 => format!("(Evaluation (Predicate \"p{a}\") (List (Concept \"{tag}{a}\") (Number {b}) (List (List (Concept \"d{i}\")))) (av 1 2 {i}))"),
            7 => format!("(State (Anchor \"s{}\") (Concept \"{tag}{i}\"))", a % 13),
            8 => format!("(cog-set-values! (Concept \"{tag}{b}\") (alist (cons (Predicate \"q\") (StringValue \"{i}\"))))"),
            _ => format!("(Concept \"{tag}{a}\" (alist (cons (Predicate \"*-TruthValueKey-*\") (stv 0.25 0.{b}))))"),
        };
        writeln!(s, "{line}").unwrap();
    }
    s
}

#[test]
fn batched_load_leaves_what_one_at_a_time_leaves() {
    // Some 40,000 atoms: several batches, so the reading thread runs.
    let text = varied("c", 12_000);
    let mut reference = AtomTable::new();
    load_str(&mut reference, &text).unwrap();
    let mut table = AtomTable::new();
    let stats = sexpr::load(&mut table, BufReader::with_capacity(100, text.as_bytes()), |_| {}).unwrap();
    assert_eq!(stats.expressions, 12_000);
    assert_eq!(atom_set(&table, true), atom_set(&reference, true));
    check_invariants(&table);

    // Into a space, where StateLinks replace: the last of each key stays.
    let reference = AtomSpace::new();
    load_str(&mut &reference, &text).unwrap();
    let space = AtomSpace::new();
    sexpr::load(&mut &space, text.as_bytes(), |_| {}).unwrap();
    assert_eq!(atom_set(&space.read().unwrap(), true), atom_set(&reference.read().unwrap(), true));
    assert_eq!(space.count_of_type(atomweave::types::STATE_LINK, false), 13);
    check_invariants(&space.read().unwrap());
}

/// The loader puts an unordered link's members in content order as it
/// reads them (a table takes that order unchecked for links over nodes):
/// however the file
/// orders them, a set is one atom, as adding it through the API makes it.
#[test]
fn unordered_links_are_one_atom_whatever_order_the_file_gives() {
    let sets = [
        ("(Set (Concept \"b\") (Concept \"a\"))", "(Set (Concept \"a\") (Concept \"b\"))"),
        ("(Set (Predicate \"a\") (Concept \"z\"))", "(Set (Concept \"z\") (Predicate \"a\"))"),
        (
            "(Similarity (List (Concept \"y\")) (List (Concept \"x\") (Concept \"y\")) (Concept \"x\"))",
            "(Similarity (Concept \"x\") (List (Concept \"x\") (Concept \"y\")) (List (Concept \"y\")))",
        ),
        ("(Set (Set (Concept \"d\") (Concept \"c\")) (Set (Concept \"c\")))", "(Set (Set (Concept \"c\")) (Set (Concept \"c\") (Concept \"d\")))"),
        // Links over one node named twice: two placeholders, one atom.
        (
            "(Set (List (Concept \"A\") (Concept \"b\")) (List (Concept \"A\") (Concept \"a\")))",
            "(Set (List (Concept \"A\") (Concept \"a\")) (List (Concept \"A\") (Concept \"b\")))",
        ),
        // A node twice in one set.
        ("(Set (Concept \"e\") (Concept \"f\") (Concept \"e\"))", "(Set (Concept \"e\") (Concept \"e\") (Concept \"f\"))"),
    ];
    let mut pairs = String::new();
    for (one, other) in sets {
        writeln!(pairs, "{one}\n{other}").unwrap();
    }
    // The pairs in the first batch, and again after two more batches (of
    // no keyed links, which would add the batch in file order), where on
    // two threads their nodes may be found in the table.
    let filler: String = (0..20_000).map(|i| format!("(Concept \"f{i}\")\n")).collect();
    let text = format!("{pairs}{filler}{pairs}");
    for one_thread in [true, false] {
        let mut table = AtomTable::new();
        let mut options = LoadOptions { one_thread, ..LoadOptions::default() };
        sexpr::load_from(&mut table, text.as_bytes(), Place::START, &mut options, |_| {}).unwrap();
        let mut reference = AtomTable::new();
        load_str(&mut reference, &text).unwrap();
        assert_eq!(atom_set(&table, false), atom_set(&reference, false));
        assert_eq!(table.count_of_type(atomweave::types::SIMILARITY_LINK, false), 1);
        check_invariants(&table);
    }
}

#[test]
fn a_bad_expression_stops_the_batched_load_there() {
    let tail = varied("after", 5_000);
    for good in [0, 1, 3_000, 9_999] {
        let head = varied("c", good);
        for bad in ["(Concept \"half\" (List", "(NoSuchNode \"x\")", "(Concept \"x\" (stv 1))"] {
            let text = format!("{head}{bad}\n{tail}");
            let mut table = AtomTable::new();
            let err = sexpr::load(&mut table, BufReader::with_capacity(4096, text.as_bytes()), |_| {}).expect_err(bad);
            assert_eq!(err.loaded, good as u64, "{bad}");
            // Just past the expression before it: the newline between is read again.
            assert_eq!(err.at.offset, head.trim_end().len() as u64, "{bad}");
            // An unclosed list fails at the end of input, and names where it opened.
            let shown = err.error.to_string();
            assert!(shown.starts_with(&format!("line {}, ", good + 1)) || shown.contains(&format!("at line {}, column 17", good + 1)), "{shown}");
            let mut reference = AtomTable::new();
            load_str(&mut reference, &head).unwrap();
            assert_eq!(atom_set(&table, true), atom_set(&reference, true), "{good} then {bad}");
        }
    }
}

#[test]
fn a_type_made_known_midway_loads_in_its_batch() {
    let text = format!("{}(MadeUpNode \"x\")\n(MadeUpLink (MadeUpNode \"x\") (Concept \"c1\"))\n{}", varied("c", 4_000), varied("c", 4_000));
    let mut table = AtomTable::new();
    let mut options = LoadOptions { declare_unknown: true, ..LoadOptions::default() };
    let stats = sexpr::load_from(&mut table, text.as_bytes(), Place::START, &mut options, |_| {}).unwrap();
    assert_eq!(stats.expressions, 8_002);
    let names: Vec<String> = options.declared.iter().map(|t| t.to_string()).collect();
    assert_eq!(names, ["MadeUpNode", "MadeUpLink"]);
    let node = table.get_node(options.declared[0], "x").unwrap();
    assert_eq!(table.incoming(node).unwrap().len(), 1);
}

#[test]
fn keyed_links_take_effect_in_file_order() {
    // A StateLink replaces its key's old state and a GrantLink keeps the
    // first grant: in one batch, a higher link before a lower one, or a
    // state replaced after something took hold of it, must end as the file
    // says, not in the order a batch adds its levels.
    for text in [
        "(State (Anchor \"a\") (List (Concept \"x\")))\n(State (Anchor \"a\") (Concept \"y\"))\n",
        "(List (State (Anchor \"a\") (Concept \"x\")) (stv 0.5 0.5))\n(State (Anchor \"a\") (Concept \"y\"))\n(Concept \"after\" (stv 1 1))\n",
        "(Grant (Anchor \"g\") (List (Concept \"first\")))\n(Grant (Anchor \"g\") (Concept \"second\") (stv 0.25 1))\n",
    ] {
        let reference = AtomSpace::new();
        load_str(&mut &reference, text).unwrap();
        let space = AtomSpace::new();
        sexpr::load(&mut &space, text.as_bytes(), |_| {}).unwrap();
        assert_eq!(atom_set(&space.read().unwrap(), true), atom_set(&reference.read().unwrap(), true), "{text}");
    }
}

#[test]
fn a_read_only_space_takes_a_file_of_atoms_it_holds() {
    let text = "(Inheritance (Concept \"a\") (Set (Concept \"b\") (Concept \"c\")))\n(Concept \"d\")\n";
    let space = AtomSpace::new();
    sexpr::load(&mut &space, text.as_bytes(), |_| {}).unwrap();
    let before = atom_set(&space.read().unwrap(), true);
    space.set_read_only(true);
    assert_eq!(sexpr::load(&mut &space, text.as_bytes(), |_| {}).unwrap().expressions, 2);
    let err = sexpr::load(&mut &space, "(Concept \"new\")".as_bytes(), |_| {}).unwrap_err();
    assert_eq!(err.loaded, 0, "{}", err.error);
    assert!(err.error.message.contains("read-only") && err.error.message.contains("batch of 1 expressions"), "{}", err.error);
    assert_eq!(atom_set(&space.read().unwrap(), true), before);
}

#[test]
fn the_deepest_expression_loads_on_the_reading_thread() {
    // Past the first batch, expressions are read on a thread of the
    // loader's own: nesting up to the reader's limit must fit its stack.
    let depth = sexpr::parse::MAX_NESTING - 1;
    let deep = format!("{}(Concept \"leaf\"){}", "(List ".repeat(depth), ")".repeat(depth));
    let text = format!("{}{deep}\n", varied("c", 6_000));
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut table = AtomTable::new();
            let stats = sexpr::load(&mut table, text.as_bytes(), |_| {}).unwrap();
            assert_eq!(stats.expressions, 6_001);
            let leaf = table.get_node(atomweave::types::CONCEPT_NODE, "leaf").unwrap();
            assert_eq!(table.incoming(leaf).unwrap().len(), 1);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// The loader on one thread and on two (a second reading ahead) leaves
/// the same atoms and stops at the same place, wherever a bad expression
/// falls and however long the text.
mod one_and_two_threads {
    use super::*;
    use proptest::prelude::*;

    fn load(text: &str, one_thread: bool) -> (Result<u64, (u64, u64)>, std::collections::BTreeSet<String>) {
        let mut table = AtomTable::new();
        let mut options = LoadOptions { one_thread, ..LoadOptions::default() };
        let r = sexpr::load_from(&mut table, BufReader::with_capacity(4096, text.as_bytes()), Place::START, &mut options, |_| {});
        (r.map(|s| s.expressions).map_err(|e| (e.loaded, e.at.offset)), atom_set(&table, true))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        #[test]
        fn same_atoms_and_same_stop(n in 1usize..20_000, skip in 0usize..10, bad in prop::option::of((0usize..20_000, 0usize..3))) {
            // Lines of `varied`, from a varying start, so batches fall anywhere.
            let mut text: String = varied("p", n + skip).lines().skip(skip).map(|l| format!("{l}\n")).collect();
            if let Some((at, which)) = bad {
                let cut = text.match_indices('\n').nth(at % n).map_or(0, |(i, _)| i + 1);
                text.insert_str(cut, ["(Concept \"x\" (stv 1))\n", "(NoSuchNode \"x\")\n", "(List (Concept \"half\")\n"][which]);
            }
            let (one, two) = (load(&text, true), load(&text, false));
            prop_assert_eq!(&one.0, &two.0);
            prop_assert!(one.1 == two.1, "the atoms differ");
        }
    }
}
