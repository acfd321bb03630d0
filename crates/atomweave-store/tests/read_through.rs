//! A space read through an LMDB store answers as the loaded store does:
//! on random small spaces, random queries (joins through a constant,
//! typed scans, a predicate of many links beside a rare atom), incoming
//! sets, truth values, values and counts by type give the same answers
//! over the store opened without loading as over the store loaded whole.

use std::collections::BTreeSet;

use atomweave::query::{execute, Executed};
use atomweave::sexpr;
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, TruthValue, Value};
use atomweave_store::{open, read_through};
use proptest::prelude::*;

mod common;
use common::{canon, canon_entry, load_store};

#[derive(Clone, Debug)]
struct Spec {
    words: usize,
    pairs: Vec<(usize, usize, u8)>,
    isa: Vec<(usize, usize)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (2usize..=12, prop::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 0..40), prop::collection::vec((any::<usize>(), any::<usize>()), 0..15))
        .prop_map(|(words, pairs, isa)| Spec { words, pairs, isa })
}

/// Word pairs under two predicates with count truth values, a FloatValue
/// on some, and InheritanceLinks between words.
fn build(s: &Spec) -> AtomSpace {
    let space = AtomSpace::new();
    let words: Vec<Handle> = (0..s.words).map(|i| space.add_node(WORD_NODE, &format!("w{i}")).unwrap()).collect();
    let preds = [space.add_node(PREDICATE_NODE, "ANY").unwrap(), space.add_node(PREDICATE_NODE, "rare").unwrap()];
    let key = space.add_node(PREDICATE_NODE, "mi").unwrap();
    for &(a, b, k) in &s.pairs {
        let pair = space.add_link(LIST_LINK, &[words[a % s.words], words[b % s.words]]).unwrap();
        let pred = preds[usize::from(k % 5 == 0)];
        let e = space.add_link(EVALUATION_LINK, &[pred, pair]).unwrap();
        space.set_tv(e, TruthValue::count(1.0, 0.0, f64::from(k) + 1.0)).unwrap();
        if k % 3 == 0 {
            space.set_value(pair, key, Value::Float(vec![f64::from(k), 0.5].into())).unwrap();
        }
    }
    for &(a, b) in &s.isa {
        space.add_link(INHERITANCE_LINK, &[words[a % s.words], words[b % s.words]]).unwrap();
    }
    space
}

/// A query's answer as handle-free text.
fn answer(space: &AtomSpace, text: &str) -> BTreeSet<String> {
    let q = sexpr::load_str(&mut &*space, text).unwrap()[0];
    match execute(space, q).unwrap() {
        Executed::Atom(h) => space.outgoing(h).unwrap().iter().map(|&g| canon(space, g)).collect(),
        Executed::Value(v) => BTreeSet::from([format!("{v:?}")]),
    }
}

fn queries(x: usize, y: usize) -> Vec<String> {
    vec![
        // The two-clause join of the scale benchmark: pairs (a, b) through x.
        format!(
            r#"(Get (VariableList (Variable "$a") (Variable "$b")) (And (Evaluation (Predicate "ANY") (List (Variable "$a") (Word "w{x}"))) (Evaluation (Predicate "ANY") (List (Word "w{x}") (Variable "$b")))))"#
        ),
        format!(r#"(Get (Evaluation (Predicate "rare") (List (Word "w{x}") (Variable "$b"))))"#),
        format!(r#"(Get (VariableList (Variable "$p") (Variable "$b")) (Evaluation (Variable "$p") (List (Word "w{y}") (Variable "$b"))))"#),
        format!(r#"(Get (And (Inheritance (Variable "$a") (Word "w{y}")) (Evaluation (Predicate "ANY") (List (Variable "$a") (Variable "$a")))))"#),
        r#"(Get (VariableList (Variable "$a") (Variable "$b")) (Inheritance (Variable "$a") (Variable "$b")))"#.to_string(),
        r#"(Get (TypedVariable (Variable "$w") (Type "WordNode")) (Inheritance (Variable "$w") (Variable "$w")))"#.to_string(),
    ]
}

/// What the two spaces say of one word: incoming sets and values.
fn facts(space: &AtomSpace, x: usize) -> Vec<String> {
    let Some(w) = space.get_node(WORD_NODE, &format!("w{x}")) else { return vec!["absent".into()] };
    let mut inc: Vec<String> = space.incoming(w).unwrap().iter().map(|&l| canon_entry(space, l)).collect();
    inc.sort();
    inc.push(format!("size {}", space.incoming_size(w).unwrap()));
    for l in space.incoming(w).unwrap().iter() {
        for e in space.incoming(*l).unwrap().iter() {
            inc.push(canon_entry(space, *e));
        }
    }
    inc.sort();
    inc
}

/// The space stored in a new LMDB store: its directory (gone when
/// dropped) and URL.
fn stored(space: &AtomSpace) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().join("db").display());
    let mut store = open(&url).unwrap();
    store.store_atomspace(space, &mut |_| {}).unwrap();
    store.close().unwrap();
    (dir, url)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn reading_through_answers_as_loading(s in spec(), x in any::<usize>(), y in any::<usize>()) {
        let (_dir, url) = stored(&build(&s));
        let (x, y) = (x % s.words, y % s.words);
        for q in queries(x, y) {
            // Fresh spaces each time: each query starts from nothing read,
            // and no query's atoms are another's data.
            let whole = load_store(&url);
            let through = read_through::open_space(&url).unwrap();
            prop_assert_eq!(answer(&through, &q), answer(&whole, &q), "{}", q);
            drop(through);
        }
        let whole = load_store(&url);
        let through = read_through::open_space(&url).unwrap();
        prop_assert_eq!(facts(&through, x), facts(&whole, x));
        prop_assert_eq!(through.count_of_type(LIST_LINK, false), whole.count_of_type(LIST_LINK, false));
        let all = |sp: &AtomSpace| sp.handles_by_type(ATOM, true).map(|h| canon_entry(sp, h)).collect::<BTreeSet<_>>();
        prop_assert_eq!(all(&through), all(&whole));
        // Cleared, it reads the store again.
        through.clear();
        prop_assert_eq!(through.count_of_type(LIST_LINK, false), whole.count_of_type(LIST_LINK, false));
    }
}

/// The same property over a Redis store: one scratch server, emptied
/// between cases.
#[test]
fn reading_through_redis_answers_as_loading() {
    use atomweave_store::redis::scratch::{cli, Scratch};
    let server = Scratch::single().unwrap();
    let url = server.url("");
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 12, ..ProptestConfig::default() });
    runner
        .run(&(spec(), any::<usize>(), any::<usize>()), |(s, x, y)| {
            cli(server.nodes[0].port, &["FLUSHALL"]).unwrap();
            let mut store = open(&url).unwrap();
            store.store_atomspace(&build(&s), &mut |_| {}).unwrap();
            store.close().unwrap();
            let (x, y) = (x % s.words, y % s.words);
            for q in queries(x, y) {
                let whole = load_store(&url);
                let through = read_through::open_space(&url).unwrap();
                prop_assert_eq!(answer(&through, &q), answer(&whole, &q), "{}", q);
            }
            let whole = load_store(&url);
            let through = read_through::open_space(&url).unwrap();
            prop_assert_eq!(facts(&through, x), facts(&whole, x));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_query_reads_only_what_it_touches() {
    // One rare word beside a predicate that holds every pair.
    let space = AtomSpace::new();
    let any = space.add_node(PREDICATE_NODE, "ANY").unwrap();
    let words: Vec<Handle> = (0..2000).map(|i| space.add_node(WORD_NODE, &format!("w{i}")).unwrap()).collect();
    for i in 0..2000 {
        for j in [1, 7, 31] {
            let pair = space.add_link(LIST_LINK, &[words[i], words[(i + j) % 2000]]).unwrap();
            space.add_link(EVALUATION_LINK, &[any, pair]).unwrap();
        }
    }
    let (_dir, url) = stored(&space);
    let through = read_through::open_space(&url).unwrap();
    let got = answer(&through, &queries(5, 0)[0]);
    // (a, w5) for a in w4, w1998, w1974; (w5, b) for b in w6, w12, w36.
    assert_eq!(got.len(), 9);
    // The query, the pairs through w5 and their members: far from 14,001 atoms.
    let held = atomweave::AtomRead::size(&through.read().unwrap());
    assert!(held < 100, "read {held} atoms");
}

#[test]
fn a_store_that_cannot_read_through_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.scm");
    std::fs::write(&path, "(Concept \"a\")\n").unwrap();
    let err = read_through::open_space(&format!("file://{}", path.display())).err().unwrap().to_string();
    assert!(err.contains("only an LMDB (lmdb:///dir) or Redis"), "{err}");
}

#[test]
fn changes_stay_in_the_space_and_store_back_on_request() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    let b = space.add_node(CONCEPT_NODE, "b").unwrap();
    let l = space.add_link(INHERITANCE_LINK, &[a, b]).unwrap();
    space.set_tv(l, TruthValue::simple(0.5, 0.5)).unwrap();
    let (_dir, url) = stored(&space);

    let through = read_through::open_space(&url).unwrap();
    // Added by content: the stored truth value is there to read.
    let a2 = through.add_node(CONCEPT_NODE, "a").unwrap();
    let b2 = through.add_node(CONCEPT_NODE, "b").unwrap();
    let l2 = through.add_link(INHERITANCE_LINK, &[a2, b2]).unwrap();
    assert_eq!(through.get_tv(l2), Some(TruthValue::simple(0.5, 0.5)));
    // A change made here is the newer: the stored value does not return over it.
    through.set_tv(l2, TruthValue::simple(0.9, 0.9)).unwrap();
    assert_eq!(through.incoming(a2).unwrap().len(), 1);
    assert_eq!(through.get_tv(l2), Some(TruthValue::simple(0.9, 0.9)));
    drop(through);
    let back = load_store(&url);
    let ends = [back.get_node(CONCEPT_NODE, "a").unwrap(), back.get_node(CONCEPT_NODE, "b").unwrap()];
    assert_eq!(back.get_tv(back.get_link(INHERITANCE_LINK, &ends).unwrap()), Some(TruthValue::simple(0.5, 0.5)));
}

#[test]
fn a_search_split_across_threads_sees_whole_incoming_sets() {
    // A hub word with enough partners that the search runs on several
    // threads, each of which may be the first to ask for a set.
    let space = AtomSpace::new();
    let any = space.add_node(PREDICATE_NODE, "ANY").unwrap();
    let hub = space.add_node(WORD_NODE, "w0").unwrap();
    for i in 1..2000 {
        let w = space.add_node(WORD_NODE, &format!("w{i}")).unwrap();
        let pairs: &[[Handle; 2]] = if i <= 40 { &[[w, hub], [hub, w]] } else { &[[w, hub]] };
        for &pair in pairs {
            let l = space.add_link(LIST_LINK, &pair).unwrap();
            space.add_link(EVALUATION_LINK, &[any, l]).unwrap();
        }
    }
    // Pairs without the hub: the predicate is far thicker than the hub,
    // so the search starts from the hub, as over real pairs.
    let words: Vec<Handle> = (1..2000).map(|i| space.get_node(WORD_NODE, &format!("w{i}")).unwrap()).collect();
    for (i, &w) in words.iter().enumerate() {
        for j in [1, 2, 3] {
            let l = space.add_link(LIST_LINK, &[w, words[(i + j) % words.len()]]).unwrap();
            space.add_link(EVALUATION_LINK, &[any, l]).unwrap();
        }
    }
    let (_dir, url) = stored(&space);
    let want = answer(&load_store(&url), &queries(0, 0)[0]);
    assert_eq!(want.len(), 1999 * 40);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for _ in 0..3 {
        let through = read_through::open_space(&url).unwrap();
        assert_eq!(pool.install(|| answer(&through, &queries(0, 0)[0])), want);
    }
}

#[test]
fn a_member_brought_with_a_link_still_shows_all_its_values() {
    let space = AtomSpace::new();
    let (a, b) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(CONCEPT_NODE, "b").unwrap());
    let key = space.add_node(PREDICATE_NODE, "k").unwrap();
    space.set_tv(b, TruthValue::simple(0.25, 0.5)).unwrap();
    space.set_value(b, key, Value::Float(vec![7.0].into())).unwrap();
    space.add_link(LIST_LINK, &[a, b]).unwrap();
    let (_dir, url) = stored(&space);

    let through = read_through::open_space(&url).unwrap();
    let a2 = through.add_node(CONCEPT_NODE, "a").unwrap();
    let list = through.incoming(a2).unwrap()[0];
    let b2 = through.outgoing(list).unwrap()[1];
    // The fetch brought b's truth value with the link; its values are read whole.
    let key2 = through.add_node(PREDICATE_NODE, "k").unwrap();
    assert_eq!(through.get_value(b2, key2), Some(Value::Float(vec![7.0].into())));
    assert_eq!(through.get_tv(b2), Some(TruthValue::simple(0.25, 0.5)));
}

#[test]
fn a_stored_state_brought_in_does_not_undo_a_new_one() {
    let space = AtomSpace::new();
    let anchor = space.add_node(ANCHOR_NODE, "light").unwrap();
    let off = space.add_node(CONCEPT_NODE, "off").unwrap();
    space.add_link(STATE_LINK, &[anchor, off]).unwrap();
    let (_dir, url) = stored(&space);

    let through = read_through::open_space(&url).unwrap();
    let anchor2 = through.add_node(ANCHOR_NODE, "light").unwrap();
    let on = through.add_node(CONCEPT_NODE, "on").unwrap();
    let state = through.add_link(STATE_LINK, &[anchor2, on]).unwrap();
    assert!(through.contains(state), "the new state stands");
    let states = through.incoming_by_type(anchor2, STATE_LINK);
    assert_eq!(states, vec![state], "the anchor's one state");
}

#[test]
fn a_store_call_while_a_space_reads_through_that_store_does_not_wait_for_itself() {
    use atomweave_store::registry::StoreHandle;
    let (_dir, url) = stored(&build(&Spec { words: 3, pairs: vec![(0, 1, 1)], isa: vec![] }));
    let held = StoreHandle::new(open(&url).unwrap());
    let space = AtomSpace::new();
    space.set_backing(Some(Box::new(read_through::Backing::over(held.store().clone()).unwrap()))).unwrap();
    let w = space.add_node(WORD_NODE, "w9").unwrap();
    // store_atom reads the atom's values, which would read through the
    // store it holds locked.
    held.store().call(|s| s.store_atom(&space, w)).unwrap();
    held.store().call(|s| s.barrier()).unwrap();
    assert_eq!(space.incoming(space.add_node(WORD_NODE, "w0").unwrap()).unwrap().len(), 1);
    drop(space);
    held.close().unwrap();
}
