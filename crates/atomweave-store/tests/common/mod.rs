//! What the store tests share: a random space with every kind of value, a
//! handle-free text form of a space to compare spaces by, and the harness
//! that runs a test's child half as a child process ([`child`]).

// Each test binary compiles its own copy and uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;

use atomweave::sexpr;
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, TruthValue, Value};
use atomweave_store::open;

pub mod child;

/// One atom as handle-free text (members of unordered links sorted).
pub fn canon(space: &AtomSpace, h: Handle) -> String {
    let t = space.get_type(h).unwrap();
    let mut s = format!("({}", t.name());
    if let Some(n) = space.name(h) {
        s += &format!(" {n:?}");
    }
    let mut members: Vec<String> = space.outgoing(h).unwrap().iter().map(|&m| canon(space, m)).collect();
    if t.is_unordered() {
        members.sort();
    }
    for m in members {
        s += " ";
        s += &m;
    }
    s + ")"
}

/// Every atom of the space with its values, as text that does not depend
/// on handles (members of unordered links sorted by their text).
pub fn canon_set(space: &AtomSpace) -> BTreeSet<String> {
    space.handles_by_type(ATOM, true).map(|h| canon_entry(space, h)).collect()
}

/// One atom of [`canon_set`]: its text, truth value and values.
pub fn canon_entry(space: &AtomSpace, h: Handle) -> String {
    let mut kv: Vec<String> = space
        .key_values(h)
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::Atom(a) => canon(space, *a),
                Value::Link(items) => {
                    format!("{:?}", items.iter().map(|x| if let Value::Atom(a) = x { canon(space, *a) } else { format!("{x:?}") }).collect::<Vec<_>>())
                }
                v => format!("{v:?}"),
            };
            format!("{}={v}", canon(space, *k))
        })
        .collect();
    kv.sort();
    format!("{} {:?} {kv:?}", canon(space, h), space.get_tv(h).unwrap())
}

/// Every atom of the store at `url` (which must exist), loaded into a new space.
pub fn load_store(url: &str) -> AtomSpace {
    let space = AtomSpace::new();
    let mut store = atomweave_store::open_existing(url).unwrap();
    store.load_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    space
}

/// A random space with truth values and every kind of value.
pub fn random_space(n: usize) -> AtomSpace {
    let space = AtomSpace::new();
    add_random(&space, n);
    space
}

/// Adds [`random_space`]'s atoms and values to `space`.
pub fn add_random(space: &AtomSpace, n: usize) {
    let mut rs = atomweave_bench::RandomSpace::new(7, 0.3);
    rs.grow(&mut &*space, n, |_| {}).unwrap();
    let key = space.add_node(PREDICATE_NODE, "key").unwrap();
    for (i, &h) in rs.atoms.iter().enumerate() {
        match i % 7 {
            0 => space.set_tv(h, TruthValue::simple(0.25 + i as f64 / 1e6, 0.5)).unwrap(),
            1 => space.set_tv(h, TruthValue::count(0.5, 0.25, i as f64)).unwrap(),
            2 => space.set_value(h, key, Value::float(vec![i as f64, -1.5])).unwrap(),
            3 => space.set_value(h, key, Value::string(["a", "ü"])).unwrap(),
            4 => space.set_value(h, key, Value::link(vec![Value::Atom(rs.atoms[i / 2]), Value::float(vec![2.0])])).unwrap(),
            5 => space.set_value(h, key, Value::bool(vec![true, false])).unwrap(),
            _ => {}
        }
    }
    // A name too long for an LMDB key, and a link with too many members for one.
    let long = space.add_node(CONCEPT_NODE, &"x".repeat(2000)).unwrap();
    let many: Vec<Handle> = rs.atoms[..100].to_vec();
    space.add_link(LIST_LINK, &many).unwrap();
    space.add_link(SET_LINK, &[long, rs.atoms[3], rs.atoms[1]]).unwrap();
}

/// Every single-atom StorageNode call against the store at `url`, which
/// starts empty; the store is closed at the end.
pub fn exercise_single_atom_calls(url: &str) {
    let space = AtomSpace::new();
    let [cat, animal, dog, key] = ["cat", "animal", "dog", "key"].map(|n| space.add_node(CONCEPT_NODE, n).unwrap());
    let cat_animal = space.add_link(INHERITANCE_LINK, &[cat, animal]).unwrap();
    let dog_animal = space.add_link(INHERITANCE_LINK, &[dog, animal]).unwrap();
    let pair = space.add_link(LIST_LINK, &[cat, dog]).unwrap();
    let eval = space.add_link(EVALUATION_LINK, &[key, pair]).unwrap();
    space.set_tv(cat_animal, TruthValue::simple(0.9, 0.8)).unwrap();
    space.set_value(cat, key, Value::float(vec![1.0, 2.0])).unwrap();
    let mut store = open(url).unwrap();
    for h in [cat_animal, dog_animal, eval] {
        store.store_atom(&space, h).unwrap();
    }
    store.store_atom(&space, cat).unwrap();
    store.barrier().unwrap();

    // Into a fresh space, piece by piece.
    let s2 = AtomSpace::new();
    let animal2 = s2.add_node(CONCEPT_NODE, "animal").unwrap();
    assert_eq!(store.fetch_incoming_by_type(&s2, animal2, LIST_LINK).unwrap(), 0);
    assert_eq!(store.fetch_incoming_set(&s2, animal2, false).unwrap(), 2);
    let cat2 = s2.get_node(CONCEPT_NODE, "cat").unwrap();
    let ca2 = s2.get_link(INHERITANCE_LINK, &[cat2, animal2]).unwrap();
    assert_eq!(s2.get_tv(ca2), Some(TruthValue::simple(0.9, 0.8)));
    assert_eq!(s2.get_node(CONCEPT_NODE, "key"), None, "fetching links loads their values, not their members'");
    assert!(store.fetch_atom(&s2, cat2).unwrap());
    let key2 = s2.get_node(CONCEPT_NODE, "key").unwrap();
    assert_eq!(s2.get_value(cat2, key2), Some(Value::float(vec![1.0, 2.0])));
    assert_eq!(store.fetch_incoming_set(&s2, cat2, true).unwrap(), 3, "(cat -> animal), the ListLink, then the EvaluationLink above it");
    let unknown = s2.add_node(CONCEPT_NODE, "never stored").unwrap();
    assert!(!store.fetch_atom(&s2, unknown).unwrap());
    let s2b = AtomSpace::new();
    let cat2b = s2b.add_node(CONCEPT_NODE, "cat").unwrap();
    let key2b = s2b.add_node(CONCEPT_NODE, "key").unwrap();
    assert!(store.fetch_value(&s2b, cat2b, key2b).unwrap());
    assert_eq!(s2b.get_value(cat2b, key2b), Some(Value::float(vec![1.0, 2.0])));
    assert!(!store.fetch_value(&s2b, key2b, cat2b).unwrap());

    let s3 = AtomSpace::new();
    assert_eq!(store.load_atoms_of_type(&s3, INHERITANCE_LINK).unwrap(), 2);
    assert_eq!(s3.count_of_type(INHERITANCE_LINK, false), 2);

    // update_value adds, in the space now and in the store at the barrier.
    let tv_key = space.add_node(PREDICATE_NODE, sexpr::TV_KEY).unwrap();
    assert_eq!(store.update_value(&space, dog, tv_key, &[3.0]).unwrap(), Value::Truth(TruthValue::count(1.0, 0.0, 3.0)));
    assert_eq!(store.update_value(&space, dog, tv_key, &[2.0]).unwrap(), Value::Truth(TruthValue::count(1.0, 0.0, 5.0)));
    assert_eq!(store.update_value(&space, cat, key, &[1.0, 1.0, 1.0]).unwrap(), Value::float(vec![2.0, 3.0, 1.0]));
    store.barrier().unwrap();
    let s4 = AtomSpace::new();
    let dog4 = s4.add_node(CONCEPT_NODE, "dog").unwrap();
    assert!(store.fetch_atom(&s4, dog4).unwrap());
    assert_eq!(s4.get_tv(dog4), Some(TruthValue::count(1.0, 0.0, 5.0)));
    let cat4 = s4.add_node(CONCEPT_NODE, "cat").unwrap();
    assert!(store.fetch_atom(&s4, cat4).unwrap());
    assert_eq!(s4.get_value(cat4, s4.get_node(CONCEPT_NODE, "key").unwrap()), Some(Value::float(vec![2.0, 3.0, 1.0])));

    // A value removed from the space and stored is removed from the store.
    space.remove_value(cat, key).unwrap();
    store.store_value(&space, cat, key).unwrap();
    store.barrier().unwrap();
    let s6 = AtomSpace::new();
    let cat6 = s6.add_node(CONCEPT_NODE, "cat").unwrap();
    let key6 = s6.add_node(CONCEPT_NODE, "key").unwrap();
    assert!(!store.fetch_value(&s6, cat6, key6).unwrap());

    // delete: refused while links hold the atom, recursive takes them too.
    assert!(!store.delete(&space, animal, false).unwrap());
    assert!(store.delete(&space, animal, true).unwrap());
    assert!(!space.contains(cat_animal) && !space.contains(animal));
    let s5 = AtomSpace::new();
    store.load_atomspace(&s5, &mut |_| {}).unwrap();
    assert_eq!(s5.count_of_type(INHERITANCE_LINK, false), 0);
    assert!(s5.get_node(CONCEPT_NODE, "animal").is_none());
    assert!(s5.get_node(CONCEPT_NODE, "cat").is_some());
    store.close().unwrap();
}

/// Incoming sets through the store, whatever the member's place in the
/// link: links of one to six members holding `m` at each place (once, or
/// twice), an unordered link, and links not holding it, stored with
/// `store_atomspace` into the store at `url` (which must be empty).
pub fn exercise_incoming_at_every_position(url: &str) {
    let space = AtomSpace::new();
    let m = space.add_node(CONCEPT_NODE, "m").unwrap();
    let others: Vec<Handle> = (0..6).map(|i| space.add_node(CONCEPT_NODE, &format!("o{i}")).unwrap()).collect();
    let mut holding = BTreeSet::new();
    for arity in 1..=6 {
        for at in 0..arity {
            let mut members = others[..arity].to_vec();
            members[at] = m;
            holding.insert(space.add_link(LIST_LINK, &members).unwrap());
            if arity > 1 {
                members[(at + 1) % arity] = m;
                holding.insert(space.add_link(LIST_LINK, &members).unwrap());
            }
        }
        // Links of the same shape without `m`, and an empty one.
        space.add_link(LIST_LINK, &others[..arity]).unwrap();
    }
    space.add_link(LIST_LINK, &[]).unwrap();
    holding.insert(space.add_link(SET_LINK, &[others[3], others[1], m]).unwrap());
    let typed = space.add_link(INHERITANCE_LINK, &[others[0], m]).unwrap();
    holding.insert(typed);
    let above = space.add_link(EVALUATION_LINK, &[others[5], typed]).unwrap();

    let mut store = open(url).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    let fresh = || {
        let s = AtomSpace::new();
        let m = s.add_node(CONCEPT_NODE, "m").unwrap();
        (s, m)
    };
    let (s, m2) = fresh();
    assert_eq!(store.fetch_incoming_set(&s, m2, false).unwrap(), holding.len());
    let got: BTreeSet<String> = s.incoming(m2).unwrap().iter().map(|&h| canon(&s, h)).collect();
    assert_eq!(got, holding.iter().map(|&h| canon(&space, h)).collect());
    let (s, m2) = fresh();
    assert_eq!(store.fetch_incoming_by_type(&s, m2, INHERITANCE_LINK).unwrap(), 1);
    assert_eq!(store.fetch_incoming_by_type(&s, m2, SET_LINK).unwrap(), 1);
    let (s, m2) = fresh();
    assert_eq!(store.fetch_incoming_set(&s, m2, true).unwrap(), holding.len() + 1, "and the EvaluationLink above one of them");

    // Deleting `m` takes every link holding it and what is above them, nothing else.
    assert!(store.delete(&space, m, true).unwrap());
    let back = AtomSpace::new();
    store.load_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(back.size(), space.size());
    assert!(!space.contains(above));
    assert_eq!(canon_set(&back), canon_set(&space));
    store.close().unwrap();
}

/// `store_atomspace` into the empty store at `url` while another thread
/// adds atoms: every atom there before the store began is stored, and
/// nothing the space does not hold; `check` checks the store's invariants
/// and gives its atom count.
pub fn exercise_store_of_a_growing_space(url: &str, check: impl FnOnce() -> u64) {
    let space = random_space(50_000);
    let before = canon_set(&space);
    let old: Vec<_> = space.handles_by_type(NODE, true).take(1000).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let adder = {
        let (space, stop) = (space.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let n = space.add_node(CONCEPT_NODE, &format!("late {i}")).unwrap();
                let l = space.add_link(LIST_LINK, &[old[i % old.len()], n]).unwrap();
                space.add_link(SET_LINK, &[l, old[(i * 7) % old.len()]]).unwrap();
                space.add_link(INHERITANCE_LINK, &[old[(i * 3) % old.len()], old[(i * 5 + 1) % old.len()]]).unwrap();
                i += 1;
            }
            i
        })
    };
    let mut store = open(url).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let added = adder.join().unwrap();
    store.close().unwrap();
    let stored = check();
    let back = AtomSpace::new();
    open(url).unwrap().load_atomspace(&back, &mut |_| {}).unwrap();
    let got = canon_set(&back);
    assert!(added > 0, "the other thread added nothing");
    assert_eq!(before.difference(&got).count(), 0, "atoms there before the store began are missing ({stored} stored)");
    assert_eq!(got.difference(&canon_set(&space)).count(), 0, "the store holds atoms the space does not");
}

/// `store_atomspace` of a space below a child space over two bases that
/// each hold the same atoms (it sees both copies) into the empty store at
/// `url`: the store holds each content once. `check` checks the store's
/// invariants and gives its atom count.
pub fn exercise_child_of_two_bases(url: &str, check: impl FnOnce() -> u64) {
    let (below, want) = child_of_two_bases();
    let mut store = open(url).unwrap();
    let mut reported = Vec::new();
    assert_eq!(store.store_atomspace(&below, &mut |n| reported.push(n)).unwrap() as usize, want.len());
    // Progress counts the atoms kept, up to their number and not past it.
    assert!(reported.iter().all(|&n| n as usize <= want.len()) && reported.last() == Some(&(want.len() as u64)), "{reported:?} of {}", want.len());
    store.close().unwrap();
    assert_eq!(check() as usize, want.len());
    let back = AtomSpace::new();
    open(url).unwrap().load_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(canon_set(&back), want);
}

/// A space below a child of two bases that each hold a copy of the same
/// contents, with truth values and values of its own, and what storing it
/// whole should keep: each content once, as the space's lookups find it.
pub fn child_of_two_bases() -> (AtomSpace, BTreeSet<String>) {
    let (a, b) = (AtomSpace::new(), AtomSpace::new());
    let child = AtomSpace::new_child(&[&a, &b]).unwrap();
    // Each base's copy of the same contents, with truth values and values
    // of its own (under a key both bases have, and one only it has).
    let mut copies = Vec::new();
    for (i, base) in [&a, &b].into_iter().enumerate() {
        let x = base.add_node(CONCEPT_NODE, "x").unwrap();
        let y = base.add_node(CONCEPT_NODE, "y").unwrap();
        let l = base.add_link(LIST_LINK, &[x, y]).unwrap();
        let e = base.add_link(EVALUATION_LINK, &[x, l]).unwrap();
        let set = base.add_link(SET_LINK, &[y, x]).unwrap();
        let (shared, own) = (base.add_node(PREDICATE_NODE, "shared").unwrap(), base.add_node(PREDICATE_NODE, &format!("only in base {i}")).unwrap());
        for (j, &h) in [x, l, e, set].iter().enumerate() {
            base.set_tv(h, TruthValue::simple(0.5 + i as f64 / 4.0, 0.25 + j as f64 / 8.0)).unwrap();
            base.set_value(h, shared, Value::float(vec![i as f64, j as f64])).unwrap();
            base.set_value(h, own, Value::string([format!("{i}")])).unwrap();
        }
        // A content only one base has, over its own copies: whichever
        // base's copies the lookups find, one of these is stored over the
        // other's.
        base.add_link(if i == 0 { MEMBER_LINK } else { INHERITANCE_LINK }, &[x, y]).unwrap();
        copies.push([x, y, l, e, shared, set]);
    }
    add_random(&child, 300);
    let below = AtomSpace::new_child(&[&child]).unwrap();
    assert!(!below.is_chain());
    // The copies the space's lookups find stand for their contents.
    let x = below.get_node(CONCEPT_NODE, "x").unwrap();
    let y = below.get_node(CONCEPT_NODE, "y").unwrap();
    let l = below.get_link(LIST_LINK, &[x, y]).unwrap();
    let found = [
        x,
        y,
        l,
        below.get_link(EVALUATION_LINK, &[x, l]).unwrap(),
        below.get_node(PREDICATE_NODE, "shared").unwrap(),
        below.get_link(SET_LINK, &[x, y]).unwrap(),
    ];
    let others = if copies[0] == found { copies[1] } else { copies[0] };
    assert!(copies.contains(&found), "the lookups find one base's copies");
    assert_ne!(canon_entry(&below, found[2]), canon_entry(&below, others[2]), "the two copies differ in their values");
    // Met before either copy (the child's atoms come first): a value naming
    // the copy not written.
    let names = child.add_node(CONCEPT_NODE, "names the other x").unwrap();
    child.set_value(names, found[4], Value::Atom(others[0])).unwrap();
    let want: BTreeSet<String> = below.handles_by_type(ATOM, true).filter(|h| !others.contains(h)).map(|h| canon_entry(&below, h)).collect();
    assert!(below.size() > want.len(), "the space sees two copies of some atoms");
    (below, want)
}

/// `store_atomspace` into the empty store at `url` of a space whose handle
/// numbers lie far above its size (numbers are never reused: over a
/// million atoms came and went before its 3,000), which stores keep in a
/// map by handle, not a vector: it loads back the same.
pub fn exercise_high_handle_numbers(url: &str) {
    let space = AtomSpace::new();
    let mut gone = atomweave::NodeBatch::new();
    for i in 0..1_200_000 {
        gone.push(CONCEPT_NODE, &format!("gone {i}"));
    }
    for h in space.add_nodes(&gone).unwrap() {
        space.extract(h, false).unwrap();
    }
    add_random(&space, 3_000);
    let top = space.handles_by_type(ATOM, true).map(Handle::to_u32).max().unwrap();
    assert!(top as usize > 100 * space.size(), "numbers up to {top} for {} atoms", space.size());
    let mut store = open(url).unwrap();
    assert_eq!(store.store_atomspace(&space, &mut |_| {}).unwrap() as usize, space.size());
    store.close().unwrap();
    let back = AtomSpace::new();
    open(url).unwrap().load_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(canon_set(&back), canon_set(&space));
}
