//! Child spaces (frames): union view, private additions, private values, hiding.

mod common;

use atomweave::types::*;
use atomweave::{AtomSpace, Error, Handle, TruthValue, Value};

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort();
    v
}

#[test]
fn child_sees_base_and_adds_into_itself() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    assert_eq!(child.bases(), std::slice::from_ref(&base));
    assert!(child.contains(a));
    assert_eq!(child.add_node(CONCEPT_NODE, "a").unwrap(), a, "adding a base atom returns it");
    let b = child.add_node(CONCEPT_NODE, "b").unwrap();
    assert!(child.contains(b) && !base.contains(b));
    assert_eq!(child.get_node(CONCEPT_NODE, "a"), Some(a));
    assert_eq!(base.get_node(CONCEPT_NODE, "b"), None);
    let l = child.add_link(LIST_LINK, &[a, b]).unwrap();
    assert!(!base.contains(l));
    assert_eq!(&*child.incoming(a).unwrap(), &[l]);
    assert_eq!(base.incoming_size(a), Some(0), "the base does not see the child's links");
    assert_eq!(child.size(), 3);
    assert_eq!(base.size(), 1);
    assert_eq!(child.count_of_type(CONCEPT_NODE, false), 2);
    assert_eq!(sorted(child.handles_by_type(NODE, true).collect()), sorted(vec![a, b]));
    assert_eq!(child.root_set_by_type(ATOM, true).collect::<Vec<_>>(), vec![l]);
    assert_eq!(base.root_set_by_type(ATOM, true).collect::<Vec<_>>(), vec![a]);
    assert_eq!(child.name(a).unwrap(), "a");
    assert_eq!(child.outgoing(l).unwrap(), &[a, b]);
    assert_eq!(child.get_type(l), Some(LIST_LINK));
    assert!(child.read().is_none() && base.read().is_none(), "no lock-free view while frames exist");
    drop(child);
    assert!(base.read().is_some());
}

#[test]
fn links_of_base_atoms_come_from_the_base() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let b = base.add_node(CONCEPT_NODE, "b").unwrap();
    let l = base.add_link(SET_LINK, &[a, b]).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    assert_eq!(child.add_link(SET_LINK, &[b, a]).unwrap(), l);
    assert_eq!(child.get_link(SET_LINK, &[a, b]), Some(l));
    let m = child.add_link(LIST_LINK, &[a, b]).unwrap();
    assert_eq!(sorted(child.incoming(a).unwrap().to_vec()), sorted(vec![l, m]));
    assert_eq!(child.incoming_by_type(a, LIST_LINK), vec![m]);
    // A child's atom and a base's, in content order.
    let c = child.add_node(CONCEPT_NODE, "0").unwrap();
    let s = child.add_link(SET_LINK, &[b, c, a]).unwrap();
    assert_eq!(child.outgoing(s).unwrap(), &[c, a, b]);
}

#[test]
fn values_set_in_a_child_stay_there() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let k = base.add_node(PREDICATE_NODE, "k").unwrap();
    base.set_tv(a, TruthValue::simple(0.1, 0.2)).unwrap();
    base.set_value(a, k, Value::float(vec![1.0])).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    assert_eq!(child.get_tv(a), Some(TruthValue::simple(0.1, 0.2)), "inherited");
    child.set_tv(a, TruthValue::simple(0.9, 0.9)).unwrap();
    assert_eq!(child.get_tv(a), Some(TruthValue::simple(0.9, 0.9)));
    assert_eq!(base.get_tv(a), Some(TruthValue::simple(0.1, 0.2)));
    child.set_tv(a, TruthValue::DEFAULT).unwrap();
    assert_eq!(child.get_tv(a), Some(TruthValue::DEFAULT), "a child's default hides the base's value");
    assert_eq!(child.increment_count(a, 2.0).unwrap(), TruthValue::count(1.0, 0.0, 2.0));
    assert_eq!(base.get_tv(a), Some(TruthValue::simple(0.1, 0.2)));
    assert_eq!(child.get_value(a, k), Some(Value::float(vec![1.0])));
    child.set_value(a, k, Value::float(vec![2.0])).unwrap();
    assert_eq!(child.get_value(a, k), Some(Value::float(vec![2.0])));
    assert_eq!(base.get_value(a, k), Some(Value::float(vec![1.0])));
    assert_eq!(child.key_values(a), vec![(k, Value::float(vec![2.0]))]);
    child.remove_value(a, k).unwrap();
    assert_eq!(child.get_value(a, k), Some(Value::float(vec![1.0])), "the base's value shows again");
}

#[test]
fn extracting_a_base_atom_hides_it_from_the_child_only() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let b = base.add_node(CONCEPT_NODE, "b").unwrap();
    let l = base.add_link(LIST_LINK, &[a, b]).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    assert!(matches!(child.extract(a, false), Err(Error::HasIncoming { .. })));
    child.extract(a, true).unwrap();
    assert!(!child.contains(a) && !child.contains(l));
    assert!(base.contains(a) && base.contains(l));
    assert_eq!(child.get_node(CONCEPT_NODE, "a"), None);
    assert_eq!(child.size(), 1);
    assert_eq!(child.incoming_size(b), Some(0));
    assert_eq!(child.add_link(LIST_LINK, &[a, b]), Err(Error::InvalidHandle(a)));
    assert_eq!(child.add_node(CONCEPT_NODE, "a").unwrap(), a, "adding it again unhides it");
    assert!(child.contains(a));
    assert_eq!(child.extract(a, false), Ok(()));
    assert_eq!(child.extract(a, false), Err(Error::InvalidHandle(a)));
}

#[test]
fn several_bases_and_nesting() {
    let root = AtomSpace::new();
    let r = root.add_node(CONCEPT_NODE, "root").unwrap();
    let left = AtomSpace::new_child(&[&root]).unwrap();
    let right = AtomSpace::new_child(&[&root]).unwrap();
    let x = left.add_node(CONCEPT_NODE, "x").unwrap();
    let y = right.add_node(CONCEPT_NODE, "y").unwrap();
    let x2 = right.add_node(CONCEPT_NODE, "x").unwrap();
    assert_ne!(x, x2, "siblings do not see each other");
    let both = AtomSpace::new_child(&[&left, &right]).unwrap();
    assert!(both.contains(x) && both.contains(y) && both.contains(r));
    assert_eq!(both.count_of_type(CONCEPT_NODE, false), 4, "root seen once through both sides");
    let l = both.add_link(LIST_LINK, &[x, y, r]).unwrap();
    assert_eq!(&*both.incoming(r).unwrap(), &[l]);
    let grandchild = AtomSpace::new_child(&[&both]).unwrap();
    assert_eq!(&*grandchild.incoming(r).unwrap(), &[l]);
    assert_eq!(grandchild.size(), 5);
    grandchild.clear();
    assert_eq!(grandchild.size(), 5, "clear removes only the grandchild's own atoms");
    let other_root = AtomSpace::new();
    other_root.add_node(CONCEPT_NODE, "numbered apart").unwrap();
    assert!(matches!(AtomSpace::new_child(&[&root, &other_root]), Err(Error::Hierarchy(_))));
    assert!(matches!(AtomSpace::new_child(&[]), Err(Error::Hierarchy(_))));
}

#[test]
fn handles_are_unique_across_a_hierarchy() {
    let base = AtomSpace::new();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..500 {
        assert!(seen.insert(base.add_node(CONCEPT_NODE, &format!("b{i}")).unwrap()));
        assert!(seen.insert(child.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap()));
    }
    for &h in &seen {
        assert!(child.contains(h));
    }
    assert_eq!(base.size(), 500);
}

// ----- a base and its children agree on incoming sets -----

#[test]
fn a_base_keeps_atoms_that_child_links_hold() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let l = child.add_link(LIST_LINK, &[a]).unwrap();
    assert!(matches!(base.extract(a, false), Err(Error::HasIncoming { .. })));
    assert_eq!(base.incoming_size(a), Some(0), "the base does not see the child's link");
    assert!(child.contains(l) && child.contains(a));
    // Recursively, the child's link goes too, as upstream removes it.
    base.extract(a, true).unwrap();
    assert!(!child.contains(l) && !child.contains(a));
    assert_eq!(child.size(), 0);
}

#[test]
fn dropping_or_clearing_a_child_releases_base_atoms() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let b = base.add_node(CONCEPT_NODE, "b").unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    child.add_link(LIST_LINK, &[a, b]).unwrap();
    child.clear();
    base.extract(a, false).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    child.add_link(LIST_LINK, &[b]).unwrap();
    drop(child);
    base.extract(b, false).unwrap();
    assert_eq!(base.size(), 0);
}

#[test]
fn clearing_a_base_removes_child_links_into_it() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let c = child.add_node(CONCEPT_NODE, "c").unwrap();
    let l = child.add_link(LIST_LINK, &[a, c]).unwrap();
    base.clear();
    assert_eq!(base.size(), 0);
    assert!(!child.contains(l) && !child.contains(a));
    assert!(child.contains(c), "the child's own node stays");
}

#[test]
fn clearing_a_child_resets_its_values_and_hiding() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let b = base.add_node(CONCEPT_NODE, "b").unwrap();
    let k = base.add_node(PREDICATE_NODE, "k").unwrap();
    base.set_tv(a, TruthValue::simple(0.5, 0.5)).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    child.set_value(a, k, Value::float(vec![1.0])).unwrap();
    child.set_tv(a, TruthValue::simple(0.9, 0.9)).unwrap();
    child.extract(b, false).unwrap();
    child.clear();
    child.remove_value(a, k).unwrap();
    assert_eq!(child.get_tv(a), Some(TruthValue::simple(0.5, 0.5)));
    assert!(child.contains(b), "clear drops what the child hid");
}

#[test]
fn a_base_link_over_an_atom_the_child_hid_stays_hidden() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    child.extract(a, false).unwrap();
    let l = base.add_link(LIST_LINK, &[a]).unwrap();
    let m = base.add_link(SET_LINK, &[l]).unwrap();
    assert!(!child.contains(l) && !child.contains(m));
    assert_eq!(child.count_of_type(LINK, true), 0);
    assert_eq!(child.get_link(LIST_LINK, &[a]), None);
}

#[test]
fn adding_a_link_and_hiding_its_member_race_cleanly() {
    for _ in 0..2000 {
        let base = AtomSpace::new();
        let a = base.add_node(CONCEPT_NODE, "a").unwrap();
        let child = AtomSpace::new_child(&[&base]).unwrap();
        let (added, hidden) = std::thread::scope(|s| {
            let t1 = s.spawn(|| child.add_link(LIST_LINK, &[a]));
            let t2 = s.spawn(|| child.extract(a, false));
            (t1.join().unwrap(), t2.join().unwrap())
        });
        // One of the two must lose, in either order.
        assert!(added.is_err() || hidden.is_err(), "a visible link over a hidden member");
        if let Ok(l) = added {
            assert!(child.contains(l) && child.contains(a));
        }
    }
}

#[test]
fn atoms_move_between_hierarchies_by_content() {
    let a = AtomSpace::new();
    let b = AtomSpace::new();
    let x = a.add_node(CONCEPT_NODE, "x").unwrap();
    let y = a.add_node(CONCEPT_NODE, "y").unwrap();
    let l = a.add_link(LIST_LINK, &[x, y]).unwrap();
    a.set_tv(l, TruthValue::simple(0.5, 0.25)).unwrap();
    assert_eq!(b.find(&a, l), None, "not there yet, and finding adds nothing");
    assert_eq!(b.size(), 0);
    let copy = b.import(&a, l).unwrap();
    assert_eq!(b.size(), 3, "members first");
    assert_eq!(b.get_tv(copy), Some(TruthValue::simple(0.5, 0.25)));
    assert_eq!(b.find(&a, l), Some(copy));
    assert_eq!(b.import(&a, l).unwrap(), copy, "once");
    // Within one hierarchy a handle is itself.
    let child = AtomSpace::new_child(&[&a]).unwrap();
    assert_eq!(child.import(&a, l).unwrap(), l);
    assert_eq!(child.find(&a, l), Some(l));
    assert!(b.import(&a, Handle::from_u32(u32::MAX)).is_err());
}

/// Dedupe tables grow from the slots their shard lists, not from their own
/// entries: growth in a base and in a child, after removals and hiding,
/// must keep exactly the live atoms findable (a table that lost an entry
/// would let a duplicate in; one listing a removed atom would panic).
#[test]
fn lookups_survive_table_growth_after_removals_in_base_and_child() {
    let base = AtomSpace::new();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let name = |i: usize| format!("n{i}");
    let mut base_nodes = Vec::new();
    for i in 0..6000 {
        base_nodes.push(base.add_node(CONCEPT_NODE, &name(i)).unwrap());
        if i % 3 == 2 {
            base.extract(base_nodes[i - 1], false).unwrap();
        }
    }
    // Hidden in the child, and re-added there as the child's own.
    for &h in base_nodes.iter().step_by(7) {
        if child.contains(h) {
            child.extract(h, false).unwrap();
        }
    }
    let mut links = Vec::new();
    for i in 0..6000 {
        let (a, b) = (child.add_node(CONCEPT_NODE, &name(i)).unwrap(), child.add_node(PREDICATE_NODE, &name(i)).unwrap());
        links.push(child.add_link(LIST_LINK, &[a, b]).unwrap());
        if i % 4 == 3 {
            child.extract(links[i - 2], false).unwrap();
        }
    }
    for i in 0..6000 {
        let removed_in_base = i % 3 == 1;
        let in_base = base.get_node(CONCEPT_NODE, &name(i));
        assert_eq!(in_base.is_some(), !removed_in_base, "base node {i}");
        let a = child.get_node(CONCEPT_NODE, &name(i)).expect("every concept is in the child");
        let b = child.get_node(PREDICATE_NODE, &name(i)).expect("every predicate is in the child");
        assert_eq!(child.add_node(CONCEPT_NODE, &name(i)).unwrap(), a, "no duplicate of concept {i}");
        let link = child.get_link(LIST_LINK, &[a, b]);
        assert_eq!(link.is_some(), i % 4 != 1, "link {i}");
        if let Some(l) = link {
            assert_eq!(child.add_link(LIST_LINK, &[a, b]).unwrap(), l, "no duplicate of link {i}");
        }
    }
}

/// A base given twice is one base: 64 levels of (s, s) are a chain of 64
/// spaces, and a lookup that misses walks 64 spaces, not 2^64 paths.
#[test]
fn a_base_given_twice_is_one_base() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = AtomSpace::new();
        let a = s.add_node(CONCEPT_NODE, "a").unwrap();
        for _ in 0..64 {
            s = AtomSpace::new_child(&[&s, &s]).unwrap();
        }
        let _ = tx.send((s.bases().len(), s.get_node(CONCEPT_NODE, "absent"), s.get_node(CONCEPT_NODE, "a") == Some(a)));
    });
    let got = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("a lookup through 64 levels of (s, s) did not finish in 20 s");
    assert_eq!(got, (1, None, true));
}

/// Runs `f` on a thread with a 256 KiB stack, failing after `secs`: a walk
/// that recursed once per frame or per member would overflow it, and one
/// that followed every path through shared spaces would not finish.
fn on_small_stack(secs: u64, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .unwrap();
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(()) => worker.join().unwrap(),
        Err(_) if worker.is_finished() => std::panic::resume_unwind(worker.join().unwrap_err()),
        Err(_) => panic!("did not finish in {secs} s"),
    }
}

/// A stack of 20,000 frames: lookups, values, hiding, counts and dropping
/// the stack all walk it without recursion.
#[test]
fn a_frame_stack_of_any_depth() {
    on_small_stack(120, || {
        let root = AtomSpace::new();
        let a = root.add_node(CONCEPT_NODE, "a").unwrap();
        let b = root.add_node(CONCEPT_NODE, "b").unwrap();
        let l = root.add_link(LIST_LINK, &[a, b]).unwrap();
        let k = root.add_node(PREDICATE_NODE, "k").unwrap();
        root.set_value(a, k, Value::float(vec![1.0])).unwrap();
        let mut top = AtomSpace::new_child(&[&root]).unwrap();
        top.set_tv(a, TruthValue::simple(0.5, 0.5)).unwrap();
        for _ in 0..20_000 {
            top = AtomSpace::new_child(&[&top]).unwrap();
        }
        assert_eq!(top.get_node(CONCEPT_NODE, "a"), Some(a));
        assert_eq!(top.get_node(CONCEPT_NODE, "absent"), None);
        assert_eq!(top.get_link(LIST_LINK, &[a, b]), Some(l));
        assert_eq!(top.get_tv(a), Some(TruthValue::simple(0.5, 0.5)), "the bottom frame's truth value shows through");
        assert_eq!(top.get_value(a, k), Some(Value::float(vec![1.0])));
        assert_eq!(top.key_values(a).len(), 1);
        assert_eq!(top.size(), 4);
        top.extract(b, true).unwrap();
        assert!(!top.contains(b) && !top.contains(l) && top.contains(a));
        assert_eq!(top.size(), 2);
        assert!(root.contains(l), "hiding in the top frame leaves the root alone");
        drop(top);
        assert!(root.read().is_some(), "every frame was released");
    });
}

/// Forty levels of diamonds (each level two frames over both frames of the
/// level below: 2^40 paths, 80 spaces): each space is walked once.
#[test]
fn diamonds_of_frames_cost_their_size() {
    on_small_stack(60, || {
        let root = AtomSpace::new();
        let a = root.add_node(CONCEPT_NODE, "a").unwrap();
        let mut level = vec![AtomSpace::new_child(&[&root]).unwrap(), AtomSpace::new_child(&[&root]).unwrap()];
        let left_only = level[0].add_node(CONCEPT_NODE, "left").unwrap();
        for _ in 0..40 {
            let both: Vec<&AtomSpace> = level.iter().collect();
            level = vec![AtomSpace::new_child(&both).unwrap(), AtomSpace::new_child(&both).unwrap()];
        }
        let top = &level[1];
        assert_eq!(top.get_node(CONCEPT_NODE, "absent"), None);
        assert_eq!(top.get_node(CONCEPT_NODE, "left"), Some(left_only));
        assert_eq!(sorted(top.handles_by_type(NODE, true).collect()), sorted(vec![a, left_only]));
        top.extract(a, false).unwrap();
        assert!(!top.contains(a) && level[0].contains(a));
        assert_eq!(top.size(), 1);
    });
}

/// In a frame that hides something, a link is shown only while every
/// member under it is: a chain 100,000 links deep, and a tower of shared
/// members (2^64 paths), are checked with a stack and a memo.
#[test]
fn hiding_frames_check_deep_and_shared_links() {
    on_small_stack(60, || {
        let root = AtomSpace::new();
        let mut chain = root.add_node(CONCEPT_NODE, "leaf").unwrap();
        for _ in 0..100_000 {
            chain = root.add_link(LIST_LINK, &[chain]).unwrap();
        }
        let mut tower = root.add_node(CONCEPT_NODE, "base").unwrap();
        for _ in 0..64 {
            tower = root.add_link(LIST_LINK, &[tower, tower]).unwrap();
        }
        let other = root.add_node(CONCEPT_NODE, "other").unwrap();
        let child = AtomSpace::new_child(&[&root]).unwrap();
        child.extract(other, false).unwrap();
        assert!(child.contains(chain) && child.contains(tower));
        assert_eq!(child.get_type(chain), Some(LIST_LINK));
    });
}

#[test]
fn content_order_is_total_when_two_bases_hold_equal_atoms() {
    // Two bases each made (Concept "x"): two handles of equal content,
    // which the content order tells apart by handle, consistently.
    let root = AtomSpace::new();
    let (left, right) = (AtomSpace::new_child(&[&root]).unwrap(), AtomSpace::new_child(&[&root]).unwrap());
    let (xa, xb) = (left.add_node(CONCEPT_NODE, "x").unwrap(), right.add_node(CONCEPT_NODE, "x").unwrap());
    assert_ne!(xa, xb);
    let both = AtomSpace::new_child(&[&left, &right]).unwrap();
    let node = |n: &str| both.add_node(CONCEPT_NODE, n).unwrap();
    let l1 = both.add_link(LIST_LINK, &[xa, node("z")]).unwrap();
    let l2 = both.add_link(LIST_LINK, &[xb, node("w")]).unwrap();
    let l3 = both.add_link(LIST_LINK, &[xa, node("v")]).unwrap();
    let set = both.add_link(SET_LINK, &[l1, l2, l3]).unwrap();
    for order in [[l3, l2, l1], [l2, l1, l3], [l1, l3, l2]] {
        assert_eq!(both.add_link(SET_LINK, &order).unwrap(), set);
    }
    assert_eq!(both.outgoing(set).unwrap(), &[l3, l1, l2]);
}

#[test]
fn a_read_only_space_finds_what_it_holds_and_changes_nothing() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let l = base.add_link(LIST_LINK, &[a]).unwrap();
    let key = base.add_node(PREDICATE_NODE, "k").unwrap();
    base.set_read_only(true);
    assert!(base.is_read_only());
    assert_eq!(base.add_node(CONCEPT_NODE, "a").unwrap(), a);
    assert_eq!(base.add_link(LIST_LINK, &[a]).unwrap(), l);
    let refused = |r: Result<(), Error>| matches!(r, Err(Error::ReadOnly(_)));
    assert!(refused(base.add_node(CONCEPT_NODE, "b").map(drop)));
    assert!(refused(base.add_link(SET_LINK, &[a]).map(drop)));
    let mut batch = atomweave::LinkBatch::new();
    batch.push(SET_LINK, &[a]);
    assert!(refused(base.add_links(&batch).map(drop)));
    assert!(refused(base.set_tv(a, TruthValue::simple(0.5, 0.5))));
    assert!(refused(base.set_value(a, key, Value::float(vec![1.0]))));
    assert!(refused(base.remove_value(a, key)));
    assert!(refused(base.increment_count(a, 1.0).map(drop)));
    assert!(refused(base.extract(l, false)));
    assert_eq!(base.size(), 3, "nothing was added or removed");
    // The truth-value key, which upstream holds in no space, is found or
    // made: front ends answer "what keys has this atom" with it. Other
    // names are not value keys.
    let tv_key = base.value_key(atomweave::sexpr::TV_KEY).unwrap();
    assert_eq!(base.get_node(PREDICATE_NODE, atomweave::sexpr::TV_KEY), Some(tv_key));
    assert!(matches!(base.value_key("k"), Err(Error::InvalidValue(_))));
    assert!(refused(base.add_node(CONCEPT_NODE, "b").map(drop)), "still read-only");
    // Below it, a read-only frame finds the base's key; one that hid the
    // key (extracted it) does not bring it back.
    let frame = AtomSpace::new_child(&[&base]).unwrap();
    frame.set_read_only(true);
    assert_eq!(frame.value_key(atomweave::sexpr::TV_KEY).unwrap(), tv_key);
    // It finds the base's atoms by adding them, as a read-only space finds its own.
    assert_eq!(frame.add_node(CONCEPT_NODE, "a").unwrap(), a);
    assert_eq!(frame.add_link(LIST_LINK, &[a]).unwrap(), l);
    assert!(refused(frame.add_node(CONCEPT_NODE, "b").map(drop)));
    assert!(refused(frame.add_link(SET_LINK, &[a]).map(drop)));
    frame.set_read_only(false);
    frame.extract(tv_key, false).unwrap();
    frame.set_read_only(true);
    assert!(refused(frame.value_key(atomweave::sexpr::TV_KEY).map(drop)));
    drop(frame);
    base.set_read_only(false);
    base.extract(tv_key, false).unwrap();
    base.set_read_only(true);
    // A child of a read-only space is writable and keeps its changes.
    let child = AtomSpace::new_child(&[&base]).unwrap();
    child.set_tv(a, TruthValue::simple(0.5, 0.5)).unwrap();
    child.add_node(CONCEPT_NODE, "b").unwrap();
    assert_eq!(child.get_tv(a), Some(TruthValue::simple(0.5, 0.5)));
    assert_eq!(base.get_tv(a), Some(TruthValue::DEFAULT));
    base.set_read_only(false);
    base.set_tv(a, TruthValue::simple(0.25, 0.5)).unwrap();
    assert_eq!(base.get_tv(a), Some(TruthValue::simple(0.25, 0.5)));
    // Clearing is the owner's act, allowed read-only as upstream allows it.
    drop(child);
    base.set_read_only(true);
    base.clear();
    assert_eq!(base.size(), 0);
    assert!(base.is_read_only());
}

#[test]
fn the_version_of_an_atom_is_the_nearest_frame_that_holds_or_changed_it() {
    let base = AtomSpace::new();
    let x = base.add_node(CONCEPT_NODE, "x").unwrap();
    let y = base.add_node(CONCEPT_NODE, "y").unwrap();
    let mid = AtomSpace::new_child(&[&base]).unwrap();
    let top = AtomSpace::new_child(&[&mid]).unwrap();
    assert_eq!(top.version_space(x), Some(&base));
    mid.set_tv(x, TruthValue::simple(0.5, 0.5)).unwrap();
    assert_eq!(top.version_space(x), Some(&mid), "a frame below that changed it holds a copy");
    assert_eq!(base.version_space(x), Some(&base));
    let z = top.add_node(CONCEPT_NODE, "z").unwrap();
    assert_eq!(top.version_space(z), Some(&top));
    assert_eq!(mid.version_space(z), None);
    // A link of the base's versions stays the base's; given a newer
    // member, the frame adding it takes its own version, with its values.
    let l = base.add_link(LIST_LINK, &[x, y]).unwrap();
    base.set_tv(l, TruthValue::count(1.0, 0.0, 5.0)).unwrap();
    assert_eq!(top.add_link(LIST_LINK, &[x, y]).unwrap(), l);
    assert!(!top.take_newer_version(l, &[&base, &base]).unwrap());
    assert_eq!(top.version_space(l), Some(&base));
    assert!(top.take_newer_version(l, &[&mid, &base]).unwrap());
    assert_eq!(top.version_space(l), Some(&top));
    assert_eq!(top.get_tv(l), Some(TruthValue::count(1.0, 0.0, 5.0)), "the copy keeps the values");
    assert!(!top.take_newer_version(l, &[&mid, &base]).unwrap(), "once is enough");
    let read_only = AtomSpace::new_child(&[&mid]).unwrap();
    read_only.set_read_only(true);
    assert!(!read_only.take_newer_version(l, &[&mid, &base]).unwrap(), "a read-only frame takes none");
    assert_eq!(read_only.version_space(l), Some(&base));
}

#[test]
fn a_frame_that_hid_an_atom_finds_its_new_one_by_content() {
    let base = AtomSpace::new();
    let foo = base.add_node(CONCEPT_NODE, "foo").unwrap();
    let mid = AtomSpace::new_child(&[&base]).unwrap();
    mid.extract(foo, true).unwrap();
    let top = AtomSpace::new_child(&[&mid]).unwrap();
    let again = top.add_node(CONCEPT_NODE, "foo").unwrap();
    assert_ne!(again, foo, "hidden below, it is a new atom here");
    assert_eq!(top.find(&base, foo), Some(again));
    assert_eq!(top.import(&base, foo).unwrap(), again);
    assert_eq!(mid.find(&base, foo), None);
    assert_eq!(base.find(&top, again), Some(foo));
}

#[test]
fn a_space_knows_the_spaces_made_over_it() {
    let a = AtomSpace::new();
    let b = AtomSpace::new_child(&[&a]).unwrap();
    let c = AtomSpace::new_child(&[&a]).unwrap();
    let d = AtomSpace::new_child(&[&b, &c]).unwrap();
    assert_eq!(a.children(), vec![b.clone(), c.clone()]);
    assert_eq!(b.children(), vec![d.clone()]);
    assert_eq!(c.children(), vec![d.clone()]);
    drop(d);
    assert!(b.children().is_empty(), "only live spaces");
}

#[test]
fn a_gone_child_gives_its_handle_numbers_back() {
    // A scratch frame per call (a grounded predicate per grounding) must
    // not use up the hierarchy's handles, nor grow later frames.
    let base = AtomSpace::new();
    base.add_node(CONCEPT_NODE, "base").unwrap();
    let first = {
        let frame = AtomSpace::new_child(&[&base]).unwrap();
        frame.add_node(CONCEPT_NODE, "scratch").unwrap()
    };
    for _ in 0..1000 {
        let frame = AtomSpace::new_child(&[&base]).unwrap();
        assert_eq!(frame.add_node(CONCEPT_NODE, "scratch").unwrap(), first);
    }
    // A live frame keeps its numbers: another frame beside it gets others.
    let kept = AtomSpace::new_child(&[&base]).unwrap();
    let a = kept.add_node(CONCEPT_NODE, "scratch").unwrap();
    let other = AtomSpace::new_child(&[&base]).unwrap();
    assert_ne!(other.add_node(CONCEPT_NODE, "scratch").unwrap(), a);
    assert_eq!(kept.name(a), Some("scratch"));
}

#[test]
fn roots_made_side_by_side_can_be_the_bases_of_one_child() {
    let (a, b) = (AtomSpace::new(), AtomSpace::new());
    let c = AtomSpace::new_child(&[&a, &b]).unwrap();
    // Atoms added to the bases after the child was made are seen from it.
    let x = a.add_node(CONCEPT_NODE, "in a").unwrap();
    let y = b.add_node(CONCEPT_NODE, "in b").unwrap();
    assert_ne!(x, y, "the joined roots draw handles from one numbering");
    let mut seen: Vec<Handle> = c.handles_by_type(CONCEPT_NODE, false).collect();
    seen.sort();
    let mut want = vec![x, y];
    want.sort();
    assert_eq!(seen, want);
    assert_eq!(a.handles_by_type(CONCEPT_NODE, false).collect::<Vec<_>>(), [x]);
    assert_eq!(b.handles_by_type(CONCEPT_NODE, false).collect::<Vec<_>>(), [y]);
    assert!(!a.contains(y) && !b.contains(x));
    // The child's own atoms stay its own; a link over both bases' atoms works.
    let l = c.add_link(LIST_LINK, &[x, y]).unwrap();
    assert_eq!(c.incoming(x).as_deref(), Some(&[l][..]));
    assert!(a.get_link(LIST_LINK, &[x, y]).is_none());
    // A root that already holds atoms joins a new one, too.
    let d = AtomSpace::new();
    let e = AtomSpace::new_child(&[&a, &d]).unwrap();
    assert!(e.contains(x));
    // Two roots that both hold atoms number them apart: no common child.
    let (p, q) = (AtomSpace::new(), AtomSpace::new());
    p.add_node(CONCEPT_NODE, "p").unwrap();
    q.add_node(CONCEPT_NODE, "q").unwrap();
    let err = AtomSpace::new_child(&[&p, &q]).unwrap_err().to_string();
    assert!(err.contains("one root space"), "{err}");
}
