//! The AtomTable and AtomSpace APIs, operation by operation.

mod common;

use atomweave::types::*;
use atomweave::{AtomRead, AtomSpace, AtomTable, Error, Handle, TruthValue, Value};
use common::check_invariants;

#[test]
fn nodes_are_unique() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "cat").unwrap();
    assert_eq!(t.add_node(CONCEPT_NODE, "cat").unwrap(), a);
    let w = t.add_node(WORD_NODE, "cat").unwrap();
    assert_ne!(a, w);
    assert_eq!(t.get_node(CONCEPT_NODE, "cat"), Some(a));
    assert_eq!(t.get_node(CONCEPT_NODE, "dog"), None);
    assert_eq!(t.name(a), Some("cat"));
    assert_eq!(t.get_type(a), Some(CONCEPT_NODE));
    assert_eq!(t.size(), 2);
    assert_eq!(t.add_node(LIST_LINK, "x"), Err(Error::NotANodeType(LIST_LINK)));
    assert_eq!(t.add_node(FLOAT_VALUE, "x"), Err(Error::NotANodeType(FLOAT_VALUE)));
    check_invariants(&t);
}

#[test]
fn links_and_incoming_sets() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    let ab = t.add_link(INHERITANCE_LINK, &[a, b]).unwrap();
    let ba = t.add_link(INHERITANCE_LINK, &[b, a]).unwrap();
    assert_ne!(ab, ba, "ordered links keep their order");
    assert_eq!(t.add_link(INHERITANCE_LINK, &[a, b]).unwrap(), ab);
    assert_eq!(t.outgoing(ab), Some(&[a, b][..]));
    assert_eq!(t.arity(ab), Some(2));
    let mut inc = t.incoming(a).unwrap().to_vec();
    inc.sort();
    let mut want = vec![ab, ba];
    want.sort();
    assert_eq!(inc, want);
    let aa = t.add_link(LIST_LINK, &[a, a]).unwrap();
    assert_eq!(t.incoming(a).unwrap().iter().filter(|&&l| l == aa).count(), 1, "a link is in an incoming set once");
    assert_eq!(t.incoming_by_type(a, LIST_LINK).collect::<Vec<_>>(), vec![aa]);
    assert_eq!(t.add_link(CONCEPT_NODE, &[a]), Err(Error::NotALinkType(CONCEPT_NODE)));
    let empty = t.add_link(LIST_LINK, &[]).unwrap();
    assert_eq!(t.outgoing(empty), Some(&[][..]));
    let nested = t.add_link(EVALUATION_LINK, &[aa, ab]).unwrap();
    assert_eq!(t.incoming(aa), Some(&[nested][..]));
    check_invariants(&t);
}

#[test]
fn unordered_links_are_canonical() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    let c = t.add_node(CONCEPT_NODE, "c").unwrap();
    let s1 = t.add_link(SET_LINK, &[c, a, b]).unwrap();
    let s2 = t.add_link(SET_LINK, &[b, c, a]).unwrap();
    assert_eq!(s1, s2);
    assert_eq!(t.get_link(SET_LINK, &[a, c, b]), Some(s1));
    assert_eq!(t.add_link(SIMILARITY_LINK, &[a, b]).unwrap(), t.add_link(SIMILARITY_LINK, &[b, a]).unwrap());
    check_invariants(&t);
}

#[test]
fn unordered_members_are_in_content_order_whatever_their_handles() {
    let mut t = AtomTable::new();
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let p = t.add_node(PREDICATE_NODE, "a").unwrap();
    let la = t.add_link(LIST_LINK, &[a, b]).unwrap();
    let lb = t.add_link(LIST_LINK, &[b, a]).unwrap();
    let short = t.add_link(LIST_LINK, &[b]).unwrap();
    // Type name, then name or arity, then members left to right.
    let set = t.add_link(SET_LINK, &[lb, p, la, short, b, a]).unwrap();
    assert_eq!(t.outgoing(set).unwrap(), &[a, b, short, la, lb, p]);

    // Two chains 20,000 deep that differ only at the bottom: compared
    // without recursion, the first differing member followed down.
    let s = AtomSpace::new();
    let chain = |leaf: &str| {
        let mut h = s.add_node(CONCEPT_NODE, leaf).unwrap();
        for _ in 0..20_000 {
            h = s.add_link(LIST_LINK, &[h]).unwrap();
        }
        h
    };
    let (y, x) = (chain("y"), chain("x"));
    let set = s.add_link(AND_LINK, &[y, x]).unwrap();
    assert_eq!(s.outgoing(set).unwrap(), &[x, y]);
    assert_eq!(s.get_link(AND_LINK, &[x, y]), Some(set));
}

#[test]
fn links_need_live_members() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    t.extract(a, false).unwrap();
    assert_eq!(t.add_link(LIST_LINK, &[a]), Err(Error::InvalidHandle(a)));
    assert_eq!(t.add_link(LIST_LINK, &[Handle::from_u32(999_999)]), Err(Error::InvalidHandle(Handle::from_u32(999_999))));
    assert_eq!(t.size(), 0);
}

#[test]
fn extract_plain_and_recursive() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    let l = t.add_link(LIST_LINK, &[a, b]).unwrap();
    let e = t.add_link(EVALUATION_LINK, &[b, l]).unwrap();
    assert_eq!(t.extract(a, false), Err(Error::HasIncoming { atom: a, incoming: 1 }));
    assert!(t.contains(a));
    t.extract(a, true).unwrap();
    assert!(!t.contains(a) && !t.contains(l) && !t.contains(e));
    assert!(t.contains(b));
    assert_eq!(t.incoming_size(b), Some(0));
    assert_eq!(t.extract(a, false), Err(Error::InvalidHandle(a)));
    check_invariants(&t);
}

#[test]
fn extracted_handles_never_alias() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    t.extract(a, false).unwrap();
    let mut fresh = Vec::new();
    for i in 0..10_000 {
        fresh.push(t.add_node(CONCEPT_NODE, &format!("x{i}")).unwrap());
    }
    let again = t.add_node(CONCEPT_NODE, "a").unwrap();
    assert_ne!(again, a);
    assert!(!fresh.contains(&a));
    assert_eq!(t.get_type(a), None);
    assert_eq!(t.name(a), None);
    t.clear();
    assert_eq!(t.size(), 0);
    let after = t.add_node(CONCEPT_NODE, "a").unwrap();
    assert!(!fresh.contains(&after) && after != again, "clear() does not recycle handles");
}

#[test]
fn truth_values_fill_pages_by_slot() {
    let mut t = AtomTable::new();
    let atoms: Vec<Handle> = (0..20_000).map(|i| t.add_node(CONCEPT_NODE, &format!("n{i}")).unwrap()).collect();
    let before = t.heap_bytes();
    for (i, &a) in atoms.iter().enumerate() {
        let tv = if i % 7 == 0 { TruthValue::count(0.5, 0.25, i as f64) } else { TruthValue::simple(i as f64 / 1e5, 0.5) };
        t.set_tv(a, tv).unwrap();
    }
    for (i, &a) in atoms.iter().enumerate() {
        let tv = if i % 7 == 0 { TruthValue::count(0.5, 0.25, i as f64) } else { TruthValue::simple(i as f64 / 1e5, 0.5) };
        assert_eq!(t.get_tv(a), Some(tv), "atom {i}");
    }
    // Truth values on every atom cost their 16 bytes, plus the few counts.
    let per_atom = (t.heap_bytes() - before) as f64 / atoms.len() as f64;
    assert!(per_atom < 24.0, "{per_atom:.1} bytes per truth value");
}

#[test]
fn truth_values_and_values() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let k = t.add_node(PREDICATE_NODE, "key").unwrap();
    assert_eq!(t.get_tv(a), Some(TruthValue::DEFAULT));
    let before = t.heap_bytes();
    t.set_tv(a, TruthValue::simple(0.9, 0.8)).unwrap();
    assert_eq!(t.get_tv(a), Some(TruthValue::simple(0.9, 0.8)));
    t.set_tv(a, TruthValue::DEFAULT).unwrap();
    assert_eq!(t.get_tv(a), Some(TruthValue::DEFAULT));
    assert!(t.heap_bytes() >= before);
    assert_eq!(t.increment_count(a, 2.0).unwrap(), TruthValue::count(1.0, 0.0, 2.0));
    assert_eq!(t.increment_count(a, 3.0).unwrap(), TruthValue::count(1.0, 0.0, 5.0));
    // As upstream's cog-inc-count!: a simple truth value gives way to (ctv 1 0 n).
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    t.set_tv(b, TruthValue::simple(0.5, 0.8)).unwrap();
    assert_eq!(t.increment_count(b, 4.0).unwrap(), TruthValue::count(1.0, 0.0, 4.0));
    // Simple and count truth values replace each other in either order, and
    // a NaN strength is a simple truth value, not a count.
    t.set_tv(b, TruthValue::simple(0.25, 0.5)).unwrap();
    assert_eq!(t.get_tv(b), Some(TruthValue::simple(0.25, 0.5)));
    t.set_tv(b, TruthValue::count(0.5, 0.75, 9.0)).unwrap();
    assert_eq!(t.get_tv(b), Some(TruthValue::count(0.5, 0.75, 9.0)));
    t.set_tv(b, TruthValue::simple(f64::NAN, 0.5)).unwrap();
    assert!(matches!(t.get_tv(b), Some(TruthValue::Simple { strength, confidence: 0.5 }) if strength.is_nan()));
    t.set_tv(b, TruthValue::count(0.5, 0.75, 9.0)).unwrap();
    // Dropping a count truth value and setting a simple one leaves no count behind.
    t.set_tv(b, TruthValue::DEFAULT).unwrap();
    assert_eq!(t.get_tv(b), Some(TruthValue::DEFAULT));
    t.set_tv(b, TruthValue::simple(0.5, 0.5)).unwrap();
    assert_eq!(t.get_tv(b), Some(TruthValue::simple(0.5, 0.5)));
    t.set_tv(b, TruthValue::count(0.5, 0.75, 9.0)).unwrap();
    t.extract(b, false).unwrap();
    let b = t.add_node(CONCEPT_NODE, "b").unwrap();
    assert_eq!(t.get_tv(b), Some(TruthValue::DEFAULT));
    t.set_value(a, k, Value::float(vec![1.0, 2.0])).unwrap();
    assert_eq!(t.get_value(a, k), Some(Value::float(vec![1.0, 2.0])));
    t.set_value(a, k, Value::string(["x"])).unwrap();
    assert_eq!(t.key_values(a), &[(k, Value::string(["x"]))]);
    t.remove_value(a, k).unwrap();
    assert_eq!(t.get_value(a, k), None);
    assert!(t.key_values(a).is_empty());
    let dead = Handle::from_u32(123_456);
    assert_eq!(t.set_tv(dead, TruthValue::simple(1.0, 1.0)), Err(Error::InvalidHandle(dead)));
    assert_eq!(t.get_tv(dead), None);
}

#[test]
fn the_truth_value_key_reaches_the_truth_value() {
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let tvk = t.add_node(PREDICATE_NODE, atomweave::sexpr::TV_KEY).unwrap();
    t.set_value(a, tvk, Value::Truth(TruthValue::simple(0.3, 0.6))).unwrap();
    assert_eq!(t.get_tv(a), Some(TruthValue::simple(0.3, 0.6)));
    assert_eq!(t.get_value(a, tvk), Some(Value::Truth(TruthValue::simple(0.3, 0.6))));
    assert!(t.key_values(a).is_empty());
    assert!(matches!(t.set_value(a, tvk, Value::float(vec![1.0])), Err(Error::InvalidValue(_))));
    t.remove_value(a, tvk).unwrap();
    assert_eq!(t.get_tv(a), Some(TruthValue::DEFAULT));

    let s = AtomSpace::new();
    let a = s.add_node(CONCEPT_NODE, "a").unwrap();
    let tvk = s.add_node(PREDICATE_NODE, atomweave::sexpr::TV_KEY).unwrap();
    s.set_value(a, tvk, Value::Truth(TruthValue::count(0.5, 0.5, 4.0))).unwrap();
    assert_eq!(s.get_tv(a), Some(TruthValue::count(0.5, 0.5, 4.0)));
    assert_eq!(s.get_value(a, tvk), Some(Value::Truth(TruthValue::count(0.5, 0.5, 4.0))));
    s.remove_value(a, tvk).unwrap();
    assert_eq!(s.get_tv(a), Some(TruthValue::DEFAULT));
}

#[test]
fn type_scans_and_counts() {
    let mut t = AtomTable::new();
    let mut concepts = Vec::new();
    for i in 0..1000 {
        concepts.push(t.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap());
    }
    let p = t.add_node(PREDICATE_NODE, "p").unwrap();
    let l = t.add_link(LIST_LINK, &[concepts[0], p]).unwrap();
    assert_eq!(t.count_of_type(CONCEPT_NODE, false), 1000);
    assert_eq!(t.count_of_type(NODE, true), 1001);
    assert_eq!(t.count_of_type(NODE, false), 0);
    assert_eq!(t.count_of_type(ATOM, true), 1002);
    let mut scanned: Vec<Handle> = t.handles_by_type(CONCEPT_NODE, false).collect();
    scanned.sort();
    concepts.sort();
    assert_eq!(scanned, concepts);
    assert_eq!(t.handles_by_type(LINK, true).collect::<Vec<_>>(), vec![l]);
    assert_eq!(t.root_set_by_type(NODE, true).count(), 999);
    t.extract(concepts[5], false).unwrap();
    assert_eq!(t.count_of_type(CONCEPT_NODE, false), 999);
    assert_eq!(t.handles_by_type(CONCEPT_NODE, false).count(), 999);
    check_invariants(&t);
}

#[test]
fn long_names_and_wide_links() {
    let mut t = AtomTable::new();
    let long = "x".repeat(100_000);
    let n = t.add_node(CONCEPT_NODE, &long).unwrap();
    assert_eq!(t.name(n), Some(long.as_str()));
    assert_eq!(t.get_node(CONCEPT_NODE, &long), Some(n));
    let members: Vec<Handle> = (0..70_000).map(|i| t.add_node(NUMBER_NODE, &i.to_string()).unwrap()).collect();
    let wide = t.add_link(LIST_LINK, &members).unwrap();
    assert_eq!(t.arity(wide), Some(70_000));
    assert_eq!(t.outgoing(wide).unwrap(), &members[..]);
    assert_eq!(t.get_link(LIST_LINK, &members), Some(wide));
    let set = t.add_link(SET_LINK, &members).unwrap();
    assert_eq!(t.incoming_size(members[0]), Some(2));
    t.extract(set, false).unwrap();
    t.extract(n, false).unwrap();
    check_invariants(&t);
}

#[test]
fn big_incoming_sets_grow_and_shrink() {
    let mut t = AtomTable::new();
    let hub = t.add_node(PREDICATE_NODE, "hub").unwrap();
    let links: Vec<Handle> = (0..5000)
        .map(|i| {
            let c = t.add_node(CONCEPT_NODE, &i.to_string()).unwrap();
            t.add_link(EVALUATION_LINK, &[hub, c]).unwrap()
        })
        .collect();
    assert_eq!(t.incoming_size(hub), Some(5000));
    for &l in links.iter().step_by(2) {
        t.extract(l, false).unwrap();
    }
    assert_eq!(t.incoming_size(hub), Some(2500));
    check_invariants(&t);
    for &l in links.iter().skip(1).step_by(2) {
        t.extract(l, false).unwrap();
    }
    assert_eq!(t.incoming_size(hub), Some(0));
    check_invariants(&t);
}

#[test]
fn space_matches_table_semantics() {
    let s = AtomSpace::new();
    let a = s.add_node(CONCEPT_NODE, "a").unwrap();
    let b = s.add_node(CONCEPT_NODE, "b").unwrap();
    let l = s.add_link(LIST_LINK, &[a, b]).unwrap();
    assert_eq!(s.outgoing(l).unwrap(), &[a, b]);
    assert_eq!(&*s.incoming(a).unwrap(), &[l]);
    assert_eq!(s.name(a).unwrap(), "a");
    assert_eq!(s.get_node(CONCEPT_NODE, "a"), Some(a));
    assert_eq!(s.get_link(LIST_LINK, &[a, b]), Some(l));
    assert_eq!(s.incoming_by_type(a, LIST_LINK), vec![l]);
    s.set_tv(l, TruthValue::simple(0.5, 0.5)).unwrap();
    assert_eq!(s.get_tv(l), Some(TruthValue::simple(0.5, 0.5)));
    assert_eq!(s.increment_count(a, 1.0).unwrap(), TruthValue::count(1.0, 0.0, 1.0));
    assert_eq!(s.extract(a, false), Err(Error::HasIncoming { atom: a, incoming: 1 }));
    s.extract(a, true).unwrap();
    assert_eq!(s.size(), 1);
    assert_eq!(s.handles_by_type(NODE, true).collect::<Vec<_>>(), vec![b]);
    check_invariants(&s.read().unwrap());
    let clone = s.clone();
    clone.clear();
    assert_eq!(s.size(), 0, "clones share one space");
    assert!(s.try_into_table().is_err());
    let table = AtomSpace::new().try_into_table().unwrap();
    assert_eq!(table.size(), 0);
}

#[test]
fn space_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<AtomSpace>();
    check::<AtomTable>();
}

/// LinkValues nest at most MAX_VALUE_NESTING deep in a space (as in Atomese
/// text and in stores): a deeper one is refused and changes nothing, so
/// every walk over a stored value (drop and comparison included) is shallow.
#[test]
fn values_nested_too_deep_are_refused() {
    fn nested(levels: usize) -> Value {
        (0..levels).fold(Value::float(vec![1.0]), |v, _| Value::link(vec![v]))
    }
    let space = AtomSpace::new();
    let (a, k) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(PREDICATE_NODE, "k").unwrap());
    space.set_value(a, k, nested(atomweave::MAX_VALUE_NESTING)).unwrap();
    assert_eq!(space.get_value(a, k).unwrap().nesting(), atomweave::MAX_VALUE_NESTING);
    let deep = nested(atomweave::MAX_VALUE_NESTING + 1);
    let err = space.set_value(a, k, deep.clone()).unwrap_err().to_string();
    assert!(err.contains("nest at most 256 deep"), "{err}");
    assert_eq!(space.get_value(a, k).unwrap().nesting(), atomweave::MAX_VALUE_NESTING, "the refused value replaced the old one");
    let mut table = AtomTable::new();
    let b = table.add_node(CONCEPT_NODE, "b").unwrap();
    let tk = table.add_node(PREDICATE_NODE, "k").unwrap();
    assert!(table.set_value(b, tk, deep).is_err());
    assert_eq!(table.get_value(b, tk), None);
    // Breadth is not depth: a wide LinkValue of shallow ones is fine.
    space.set_value(a, k, Value::link(vec![nested(3); 10_000])).unwrap();
}

/// A QueueValue counts as a level wherever it is: one inside a LinkValue
/// was measured as flat, so LinkValues and queues in turn nested without
/// bound and crashed whatever walked them later.
#[test]
fn queues_inside_link_values_count_toward_the_nesting() {
    let alternating = |levels: usize| {
        (0..levels).fold(Value::float(vec![1.0]), |v, i| if i % 2 == 0 { Value::link(vec![v]) } else { Value::Queue(atomweave::QueueValue::new([v])) })
    };
    assert_eq!(alternating(1000).shape(), (1000, 1001));
    let space = AtomSpace::new();
    let (a, k) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(PREDICATE_NODE, "k").unwrap());
    let err = space.set_value(a, k, alternating(atomweave::MAX_VALUE_NESTING + 1)).unwrap_err().to_string();
    assert!(err.contains("nest at most 256 deep"), "{err}");
    space.set_value(a, k, alternating(atomweave::MAX_VALUE_NESTING)).unwrap();

    // The atoms a value holds: each once, through queues and shared parts,
    // in a walk as long as the distinct parts (2^200 paths here).
    let b = space.add_node(CONCEPT_NODE, "b").unwrap();
    let shared = Value::link(vec![Value::Atom(b), Value::Atom(a)]);
    let v = Value::Queue(atomweave::QueueValue::new([Value::Atom(a), shared.clone(), Value::link(vec![shared; 3])]));
    assert_eq!(v.atoms(), vec![a, b]);
    let doubled = (0..200).fold(Value::Atom(b), |v, _| Value::link(vec![v.clone(), v]));
    assert_eq!(doubled.atoms(), vec![b]);
}

/// A LinkValue may hold one value many times over (a copy of an Arc):
/// doubled 256 times it is 2^256 elements as a store or a printout writes
/// it. Its shape is measured with a memo (256 steps), and a space refuses
/// a value of more than MAX_VALUE_SIZE elements so counted.
#[test]
fn values_too_large_when_shared_parts_are_counted_are_refused() {
    let doubled = |levels: usize, leaf: Value| (0..levels).fold(leaf, |v, _| Value::link(vec![v.clone(), v]));
    let huge = doubled(256, Value::float(vec![1.0]));
    assert_eq!(huge.shape(), (256, usize::MAX), "2^256 elements saturate");
    let space = AtomSpace::new();
    let (a, k) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(PREDICATE_NODE, "k").unwrap());
    let err = space.set_value(a, k, huge).unwrap_err().to_string();
    assert!(err.contains("more than 268435456 elements"), "{err}");
    assert_eq!(space.get_value(a, k), None, "nothing was set");
    // 2^20 leaves of 4 floats, and the LinkValues over them: accepted.
    let fine = doubled(20, Value::float(vec![1.0; 4]));
    assert_eq!(fine.shape(), (20, (1 << 20) * 4 + (1 << 20) - 1));
    space.set_value(a, k, fine.clone()).unwrap();
    assert_eq!(space.get_value(a, k), Some(fine));
    // Vectors count their elements: 300 places of one of 2^20 floats is
    // 314 M elements to write out.
    assert_eq!(Value::float(vec![0.0; 1000]).shape(), (0, 1000));
    let wide = Value::link(vec![Value::float(vec![0.0; 1 << 20]); 300]);
    assert_eq!(wide.shape(), (1, 300 * (1 << 20) + 1));
    assert!(wide.check_shape().is_err());
}

/// Copying an atom into an unrelated space (`import`) and finding it there
/// (`find`) walk with a stack and a memo: a chain deeper than the thread's
/// stack, and a tower of shared members (2^64 paths, 128 atoms), both work.
#[test]
fn import_and_find_take_any_depth_and_sharing() {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let (from, to) = (AtomSpace::new(), AtomSpace::new());
            let mut chain = from.add_node(CONCEPT_NODE, "leaf").unwrap();
            for _ in 0..20_000 {
                chain = from.add_link(LIST_LINK, &[chain]).unwrap();
            }
            let mut tower = from.add_node(CONCEPT_NODE, "base").unwrap();
            for _ in 0..64 {
                tower = from.add_link(LIST_LINK, &[tower, tower]).unwrap();
            }
            for h in [chain, tower] {
                assert_eq!(to.find(&from, h), None);
                let copy = to.import(&from, h).unwrap();
                assert_eq!(to.find(&from, h), Some(copy));
                assert_eq!(to.import(&from, h).unwrap(), copy, "imported twice");
            }
            assert_eq!(to.size(), from.size());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn content_order_compares_across_spaces_without_walking_shared_members_twice() {
    use std::cmp::Ordering;
    // A link of a link of ... each holding its member twice: 2^64 paths.
    let chain = |leaf: &str| {
        let s = AtomSpace::new();
        let mut h = s.add_node(CONCEPT_NODE, leaf).unwrap();
        for _ in 0..64 {
            h = s.add_link(LIST_LINK, &[h, h]).unwrap();
        }
        (s, h)
    };
    let (a, ha) = chain("leaf");
    let (b, hb) = chain("leaf");
    let (c, hc) = chain("leaf2");
    assert_eq!(atomweave::content_cmp(&a, ha, &b, hb), Ordering::Equal);
    assert_eq!(atomweave::content_cmp(&a, ha, &c, hc), Ordering::Less);
    assert_eq!(atomweave::content_cmp(&c, hc, &a, ha), Ordering::Greater);
    let x = a.add_node(CONCEPT_NODE, "x").unwrap();
    assert_eq!(atomweave::content_cmp(&a, x, &b, hb), Ordering::Less, "ConceptNode before ListLink");
}

#[test]
fn a_value_may_hold_an_atomspace_by_name() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    let key = space.add_node(PREDICATE_NODE, "memory").unwrap();
    let held = AtomSpace::new_named("happy thoughts");
    held.add_node(CONCEPT_NODE, "mom").unwrap();
    space.set_value(a, key, Value::Space(held.clone().into())).unwrap();
    let Some(Value::Space(got)) = space.get_value(a, key) else { panic!("a space value") };
    assert_eq!(got.space(), &held, "the same space, not a copy");
    assert_eq!(got.space().space_name(), "happy thoughts");
    assert_eq!(got.space().size(), 1);
    // Written by name; read back as a new, empty space of that name.
    let text = atomweave::sexpr::atom_to_string(&space, a, atomweave::sexpr::Form::Wire).unwrap();
    assert!(text.contains(r#"(AtomSpace "happy thoughts")"#), "{text}");
    let other = AtomSpace::new();
    let b = atomweave::sexpr::load_str(&mut &other, &text).unwrap()[0];
    let k = other.get_node(PREDICATE_NODE, "memory").unwrap();
    let Some(Value::Space(read)) = other.get_value(b, k) else { panic!("a space value") };
    assert_eq!((read.space().space_name(), read.space().size()), ("happy thoughts", 0));
}

#[test]
fn spaces_held_in_values_in_a_long_chain_drop_without_recursion() {
    // Each space holds the one before in a value: dropping the last drops all.
    let run = || {
        let mut prev = AtomSpace::new();
        for _ in 0..20_000 {
            let next = AtomSpace::new();
            let a = next.add_node(CONCEPT_NODE, "a").unwrap();
            next.set_value(a, a, Value::Space(prev.into())).unwrap();
            prev = next;
        }
        drop(prev);
    };
    // A small stack: a recursive drop would overflow it.
    std::thread::Builder::new().stack_size(256 << 10).spawn(run).unwrap().join().unwrap();
}

/// A table gives back the value a set replaced (the loader drops
/// it off the adding thread); removing a value still removes only it.
#[test]
fn replacing_a_value_gives_back_the_one_it_replaced() {
    use atomweave::AtomSink;
    let mut t = AtomTable::new();
    let a = t.add_node(CONCEPT_NODE, "a").unwrap();
    let (k, j) = (t.add_node(PREDICATE_NODE, "k").unwrap(), t.add_node(PREDICATE_NODE, "j").unwrap());
    assert_eq!(t.replace_value(a, k, Value::float(vec![1.0])).unwrap(), None);
    assert_eq!(t.replace_value(a, j, Value::string(["s"])).unwrap(), None);
    assert_eq!(t.replace_value(a, k, Value::float(vec![2.0])).unwrap(), Some(Value::float(vec![1.0])));
    assert_eq!(t.get_value(a, k), Some(Value::float(vec![2.0])));
    let tv_key = t.add_node(PREDICATE_NODE, "*-TruthValueKey-*").unwrap();
    assert_eq!(t.replace_value(a, tv_key, Value::Truth(TruthValue::simple(0.5, 0.5))).unwrap(), None);
    assert_eq!(t.get_tv(a), Some(TruthValue::simple(0.5, 0.5)));
    t.remove_value(a, k).unwrap();
    assert_eq!((t.get_value(a, k), t.get_value(a, j)), (None, Some(Value::string(["s"]))));
    check_invariants(&t);
}
