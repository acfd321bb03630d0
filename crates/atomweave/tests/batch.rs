//! `add_links`: a batch must do what the same `add_link` calls would, in
//! order, or nothing at all when any link of it is bad.

mod common;

use atomweave::types::*;
use atomweave::{AtomSpace, AtomTable, Error, Handle, LinkBatch, NodeBatch, Type};
use common::{atom_set, check_invariants};
use proptest::prelude::*;

const LINK_TYPES: [Type; 4] = [LIST_LINK, INHERITANCE_LINK, SET_LINK, EVALUATION_LINK];

/// A batch over the atoms made so far (member `i` is atom `i` modulo their
/// number), where member 999 stands for a handle that names no atom.
#[derive(Clone, Debug)]
struct Spec(Vec<(usize, Vec<usize>)>);

fn batches() -> impl Strategy<Value = Vec<Spec>> {
    let link = (0..LINK_TYPES.len(), prop::collection::vec(0usize..1000, 0..5));
    prop::collection::vec(prop::collection::vec(link, 0..40).prop_map(Spec), 1..8)
}

fn batch_of(spec: &Spec, atoms: &[Handle], bogus: Handle) -> LinkBatch {
    let mut b = LinkBatch::new();
    for (t, members) in &spec.0 {
        let out: Vec<Handle> = members.iter().map(|&i| if i == 999 { bogus } else { atoms[i % atoms.len()] }).collect();
        b.push(LINK_TYPES[*t], &out);
    }
    b
}

fn nodes(space: &AtomSpace) -> Vec<Handle> {
    (0..30).map(|i| space.add_node(CONCEPT_NODE, &format!("n{i}")).unwrap()).collect()
}

proptest! {
    #[test]
    fn batches_match_single_adds(specs in batches()) {
        let (batched, single) = (AtomSpace::new(), AtomSpace::new());
        let mut table = AtomTable::new();
        let mut atoms = nodes(&batched);
        prop_assert_eq!(&atoms, &nodes(&single));
        for i in 0..30 {
            table.add_node(CONCEPT_NODE, &format!("n{i}")).unwrap();
        }
        // Freed by nothing, so never a live atom.
        let bogus = Handle::from_u32(u32::MAX - 1);
        for spec in &specs {
            let batch = batch_of(spec, &atoms, bogus);
            let before = atom_set(&batched.read().unwrap(), true);
            match batched.add_links(&batch) {
                Ok(added) => {
                    let one_by_one: Vec<Handle> = batch.iter().map(|(t, out)| single.add_link(t, out).unwrap()).collect();
                    prop_assert_eq!(&added, &one_by_one);
                    prop_assert_eq!(table.add_links(&batch).unwrap(), one_by_one);
                    atoms.extend(added);
                }
                Err(e) => {
                    prop_assert!(matches!(e, Error::InvalidHandle(h) if h == bogus), "{e}");
                    prop_assert!(table.add_links(&batch).is_err());
                    // Nothing of a refused batch was added.
                    prop_assert_eq!(atom_set(&batched.read().unwrap(), true), before);
                }
            }
        }
        check_invariants(&batched.read().unwrap());
        check_invariants(&table);
        prop_assert_eq!(atom_set(&batched.read().unwrap(), true), atom_set(&single.read().unwrap(), true));
        prop_assert_eq!(atom_set(&table, true), atom_set(&single.read().unwrap(), true));
    }
}

#[test]
fn a_batch_with_a_node_type_adds_nothing() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    let mut batch = LinkBatch::new();
    batch.push(LIST_LINK, &[a]);
    batch.push(CONCEPT_NODE, &[a]);
    assert!(matches!(space.add_links(&batch), Err(Error::NotALinkType(t)) if t == CONCEPT_NODE));
    assert_eq!(space.size(), 1);
    batch.clear();
    assert!(batch.is_empty());
    assert_eq!(space.add_links(&batch).unwrap(), vec![]);
}

#[test]
fn a_removed_member_deep_in_a_batch_adds_nothing() {
    // A removed atom keeps its slot, unlike the proptest's bogus handle,
    // which lies past every slot: the check must read liveness, wherever in
    // the batch (before, inside, after the look-ahead window) the bad link sits.
    let space = AtomSpace::new();
    let mut table = AtomTable::new();
    let atoms = nodes(&space);
    let table_atoms: Vec<Handle> = (0..30).map(|i| table.add_node(CONCEPT_NODE, &format!("n{i}")).unwrap()).collect();
    let gone = space.add_node(CONCEPT_NODE, "gone").unwrap();
    let table_gone = table.add_node(CONCEPT_NODE, "gone").unwrap();
    space.extract(gone, false).unwrap();
    table.extract(table_gone, false).unwrap();
    for bad_at in [0, 1, 15, 16, 17, 70, 199] {
        let batch_over = |atoms: &[Handle], gone: Handle| {
            let mut batch = LinkBatch::new();
            for i in 0..200 {
                let last = if i == bad_at { gone } else { atoms[(i * 11) % 30] };
                batch.push(LINK_TYPES[i % 4], &[atoms[i % 30], atoms[(i / 30) % 30], last]);
            }
            batch
        };
        let before = atom_set(&space.read().unwrap(), true);
        assert!(matches!(space.add_links(&batch_over(&atoms, gone)), Err(Error::InvalidHandle(h)) if h == gone));
        assert_eq!(atom_set(&space.read().unwrap(), true), before, "bad link {bad_at}");
        assert!(atoms.iter().all(|&a| space.incoming(a).unwrap().is_empty()));
        let before = atom_set(&table, true);
        assert!(matches!(table.add_links(&batch_over(&table_atoms, table_gone)), Err(Error::InvalidHandle(h)) if h == table_gone));
        assert_eq!(atom_set(&table, true), before, "bad link {bad_at}");
    }
    check_invariants(&space.read().unwrap());
    check_invariants(&table);
}

#[test]
fn a_child_space_batches_over_base_atoms() {
    let base = AtomSpace::new();
    let a = base.add_node(CONCEPT_NODE, "a").unwrap();
    let b = base.add_node(CONCEPT_NODE, "b").unwrap();
    let old = base.add_link(LIST_LINK, &[a, b]).unwrap();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    let c = child.add_node(CONCEPT_NODE, "c").unwrap();
    let mut batch = LinkBatch::new();
    batch.push(LIST_LINK, &[a, b]);
    batch.push(SET_LINK, &[c, a]);
    let added = child.add_links(&batch).unwrap();
    assert_eq!(added[0], old);
    let mut set = [c, a];
    set.sort();
    assert_eq!(child.outgoing(added[1]).unwrap(), &set[..]);
    assert!(!base.contains(added[1]));
    assert!(child.incoming(a).unwrap().contains(&added[1]));
    // A member the child cannot see refuses the whole batch.
    batch.push(LIST_LINK, &[c, Handle::from_u32(u32::MAX - 1)]);
    let size = child.size();
    assert!(child.add_links(&batch).is_err());
    assert_eq!(child.size(), size);
}

#[test]
fn threads_batching_the_same_links_share_them() {
    let space = AtomSpace::new();
    let atoms = nodes(&space);
    let mut batch = LinkBatch::new();
    for i in 0..20000 {
        batch.push(LIST_LINK, &[atoms[i % 30], atoms[(i * 7 + 3) % 30], atoms[i / 1000]]);
    }
    let start = std::sync::Barrier::new(3);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Vec<Handle>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    let r = space.add_links(&batch).unwrap();
                    done.fetch_add(1, std::sync::atomic::Ordering::Release);
                    r
                })
            })
            .collect();
        // Lock-free readers see whole links while batches run.
        start.wait();
        loop {
            for &x in space.incoming(atoms[0]).unwrap().iter() {
                assert!(space.outgoing(x).unwrap().contains(&atoms[0]));
            }
            if done.load(std::sync::atomic::Ordering::Acquire) == 2 {
                break;
            }
        }
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(results[0], results[1]);
    let distinct: std::collections::HashSet<_> = results[0].iter().collect();
    assert_eq!(space.num_links(), distinct.len());
    check_invariants(&space.read().unwrap());
}

#[test]
fn lock_free_readers_never_see_a_moving_incoming_set() {
    // Batches add links over 16 atoms, then take them away again, so their
    // incoming blocks keep moving to larger and smaller ones and freed
    // blocks are handed out again, while a reader copies the sets without
    // a lock: it must only ever see links that hold the atom.
    let space = AtomSpace::new();
    let atoms: Vec<Handle> = (0..16).map(|i| space.add_node(CONCEPT_NODE, &format!("a{i}")).unwrap()).collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            for round in 0..40 {
                let mut batch = LinkBatch::new();
                for i in 0..2000 {
                    batch.push(LIST_LINK, &[atoms[i % 16], atoms[(i / 16 + round) % 16], atoms[i / 7 % 16]]);
                }
                for l in space.add_links(&batch).unwrap() {
                    let _ = space.extract(l, false);
                }
            }
            done.store(true, std::sync::atomic::Ordering::Release);
        });
        let mut reads = 0;
        while !done.load(std::sync::atomic::Ordering::Acquire) || reads == 0 {
            for &watched in &atoms {
                for &l in space.incoming(watched).unwrap().iter() {
                    if let Some(out) = space.outgoing(l) {
                        assert!(out.contains(&watched), "{l:?} listed in the incoming set of {watched:?}");
                    }
                }
            }
            reads += 1;
        }
    });
    check_invariants(&space.read().unwrap());
}

#[test]
fn node_batches_match_single_adds() {
    let (batched, single) = (AtomSpace::new(), AtomSpace::new());
    let mut table = AtomTable::new();
    let mut batch = NodeBatch::new();
    // Repeats within the batch and of atoms already there, more of them
    // than the look-ahead window holds.
    single.add_node(PREDICATE_NODE, "p7").unwrap();
    batched.add_node(PREDICATE_NODE, "p7").unwrap();
    table.add_node(PREDICATE_NODE, "p7").unwrap();
    for i in 0..500 {
        batch.push(if i % 3 == 0 { CONCEPT_NODE } else { PREDICATE_NODE }, &format!("{}{}", if i % 3 == 0 { "c" } else { "p" }, i % 97));
    }
    batch.push(CONCEPT_NODE, "");
    batch.push(CONCEPT_NODE, &"long name ".repeat(10_000));
    let one_by_one: Vec<Handle> = batch.iter().map(|(t, name)| single.add_node(t, name).unwrap()).collect();
    assert_eq!(batched.add_nodes(&batch).unwrap(), one_by_one);
    assert_eq!(table.add_nodes(&batch).unwrap(), one_by_one);
    assert_eq!(atom_set(&batched.read().unwrap(), true), atom_set(&single.read().unwrap(), true));
    assert_eq!(atom_set(&table, true), atom_set(&single.read().unwrap(), true));
    check_invariants(&batched.read().unwrap());
    check_invariants(&table);
}

#[test]
fn a_node_batch_with_a_link_type_or_a_read_only_space_adds_nothing() {
    let space = AtomSpace::new();
    let mut table = AtomTable::new();
    let mut batch = NodeBatch::new();
    batch.push(CONCEPT_NODE, "a");
    batch.push(LIST_LINK, "b");
    assert!(matches!(space.add_nodes(&batch), Err(Error::NotANodeType(t)) if t == LIST_LINK));
    assert!(matches!(table.add_nodes(&batch), Err(Error::NotANodeType(t)) if t == LIST_LINK));
    assert_eq!((space.size(), atomweave::AtomRead::size(&table)), (0, 0));
    batch.truncate(1);
    assert_eq!(batch.len(), 1);
    space.set_read_only(true);
    assert!(space.add_nodes(&batch).is_err());
    assert_eq!(space.size(), 0);
    // Nodes a read-only space holds are given, as add_node gives them.
    space.set_read_only(false);
    let held = space.add_node(CONCEPT_NODE, "a").unwrap();
    space.set_read_only(true);
    assert_eq!(space.add_nodes(&batch).unwrap(), [held]);
    space.set_read_only(false);
    let child = AtomSpace::new_child(&[&space]).unwrap();
    let a = held;
    batch.push(CONCEPT_NODE, "only in the child");
    let added = child.add_nodes(&batch).unwrap();
    assert_eq!(added[0], a);
    assert!(!space.contains(added[1]) && child.contains(added[1]));
}

#[test]
fn a_link_batch_keeps_the_state_link_rule() {
    // A StateLink replaces the one of the same key: a batch must not add a second.
    let space = AtomSpace::new();
    let key = space.add_node(ANCHOR_NODE, "key").unwrap();
    let (x, y) = (space.add_node(CONCEPT_NODE, "x").unwrap(), space.add_node(CONCEPT_NODE, "y").unwrap());
    let mut batch = LinkBatch::new();
    batch.push(STATE_LINK, &[key, x]);
    batch.push(LIST_LINK, &[x, y]);
    batch.push(STATE_LINK, &[key, y]);
    let added = space.add_links(&batch).unwrap();
    assert!(!space.contains(added[0]));
    assert_eq!(space.incoming(key).unwrap().to_vec(), [added[2]]);
}
