//! Many threads on one AtomSpace: indexes stay consistent, adds stay unique,
//! counts stay atomic.

mod common;

use std::thread;

use atomweave::types::*;
use atomweave::{AtomSpace, Error, Handle, TruthValue, Value};
use common::check_invariants;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const THREADS: u64 = 8;

#[test]
fn mixed_operations_keep_indexes_consistent() {
    let space = AtomSpace::new();
    let key = space.add_node(PREDICATE_NODE, "key").unwrap();
    thread::scope(|scope| {
        for seed in 0..THREADS {
            let space = &space;
            scope.spawn(move || {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                let name = |rng: &mut Xoshiro256PlusPlus| format!("n{}", rng.gen_range(0..300));
                let mut mine: Vec<Handle> = Vec::new();
                for _ in 0..20_000 {
                    match rng.gen_range(0..10) {
                        0..=2 => mine.push(space.add_node(CONCEPT_NODE, &name(&mut rng)).unwrap()),
                        3..=5 => {
                            let a = space.get_node(CONCEPT_NODE, &name(&mut rng));
                            let b = if rng.gen_bool(0.3) && !mine.is_empty() {
                                Some(mine[rng.gen_range(0..mine.len())])
                            } else {
                                space.get_node(CONCEPT_NODE, &name(&mut rng))
                            };
                            let ty = [LIST_LINK, SET_LINK, INHERITANCE_LINK][rng.gen_range(0..3)];
                            if let (Some(a), Some(b)) = (a, b) {
                                match space.add_link(ty, &[a, b]) {
                                    Ok(l) => mine.push(l),
                                    Err(Error::InvalidHandle(_)) => {}
                                    Err(e) => panic!("{e}"),
                                }
                            }
                        }
                        6 => {
                            if let Some(h) = space.get_node(CONCEPT_NODE, &name(&mut rng)) {
                                match space.extract(h, rng.gen_bool(0.5)) {
                                    Ok(()) | Err(Error::InvalidHandle(_)) | Err(Error::HasIncoming { .. }) => {}
                                    Err(e) => panic!("{e}"),
                                }
                            }
                        }
                        7 if !mine.is_empty() => {
                            let h = mine[rng.gen_range(0..mine.len())];
                            let _ = space.set_tv(h, TruthValue::simple(rng.gen(), rng.gen()));
                            let _ = space.set_value(h, key, Value::float(vec![1.0]));
                        }
                        8 if !mine.is_empty() => {
                            let h = mine[rng.gen_range(0..mine.len())];
                            let inc: Vec<Handle> = space.incoming(h).map(|i| i.to_vec()).unwrap_or_default();
                            for l in inc {
                                if let Some(out) = space.outgoing(l) {
                                    assert!(out.contains(&h), "incoming link does not contain its target");
                                }
                            }
                        }
                        _ if !mine.is_empty() => {
                            let h = mine[rng.gen_range(0..mine.len())];
                            let _ = space.increment_count(h, 1.0);
                        }
                        _ => {}
                    }
                }
            });
        }
    });
    check_invariants(&space.read().unwrap());
}

#[test]
fn concurrent_adds_of_the_same_atoms_yield_one_atom_each() {
    let space = AtomSpace::new();
    let results: Vec<Vec<Handle>> = thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|seed| {
                let space = &space;
                scope.spawn(move || {
                    let mut order: Vec<u32> = (0..2000).collect();
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                    for i in (1..order.len()).rev() {
                        order.swap(i, rng.gen_range(0..=i));
                    }
                    let mut got = vec![Handle::from_u32(0); 4000];
                    for &i in &order {
                        let n = space.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap();
                        let m = space.add_node(CONCEPT_NODE, &format!("c{}", (i + 1) % 2000)).unwrap();
                        got[i as usize] = n;
                        got[2000 + i as usize] = space.add_link(SET_LINK, &[n, m]).unwrap();
                    }
                    got
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results[1..] {
        assert_eq!(r, &results[0]);
    }
    assert_eq!(space.size(), 4000);
    check_invariants(&space.read().unwrap());
}

#[test]
fn increment_count_is_atomic() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "counted").unwrap();
    thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                for _ in 0..2000 {
                    space.increment_count(a, 1.0).unwrap();
                }
            });
        }
    });
    assert_eq!(space.get_tv(a).unwrap().count_of(), (THREADS * 2000) as f64);
}

#[test]
fn recursive_extract_races_with_adds() {
    let space = AtomSpace::new();
    let hub = space.add_node(CONCEPT_NODE, "hub").unwrap();
    thread::scope(|scope| {
        for seed in 0..THREADS - 1 {
            let space = &space;
            scope.spawn(move || {
                for i in 0..2000 {
                    let n = space.add_node(CONCEPT_NODE, &format!("{seed}-{i}")).unwrap();
                    match space.add_link(LIST_LINK, &[hub, n]) {
                        Ok(_) | Err(Error::InvalidHandle(_)) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            });
        }
        scope.spawn(|| {
            thread::sleep(std::time::Duration::from_millis(5));
            space.extract(hub, true).unwrap();
        });
    });
    assert!(!space.contains(hub));
    check_invariants(&space.read().unwrap());
}

#[test]
fn reading_again_while_holding_a_guard_does_not_deadlock_behind_a_writer() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    space.set_tv(a, TruthValue::simple(0.5, 0.5)).unwrap();
    let held = space.read().unwrap();
    thread::scope(|scope| {
        // A writer that queues on every shard lock the guard holds.
        let writer = scope.spawn(|| space.add_node(CONCEPT_NODE, "w").unwrap());
        thread::sleep(std::time::Duration::from_millis(50));
        // A set truth value is read under its shard's read lock: taken again
        // while the writer waits, it must not queue behind it.
        assert_eq!(space.get_tv(a), Some(TruthValue::simple(0.5, 0.5)));
        drop(held);
        writer.join().unwrap();
    });
}

#[test]
fn incoming_sets_read_without_locks_are_never_torn() {
    let space = AtomSpace::new();
    let hub = space.add_node(CONCEPT_NODE, "hub").unwrap();
    let members: Vec<Handle> = (0..200).map(|i| space.add_node(CONCEPT_NODE, &format!("m{i}")).unwrap()).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            for _ in 0..20_000 {
                let m = members[rng.gen_range(0..members.len())];
                if let Some(l) = space.get_link(LIST_LINK, &[hub, m]) {
                    let _ = space.extract(l, false);
                } else {
                    space.add_link(LIST_LINK, &[hub, m]).unwrap();
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Release);
        });
        // A read that overlapped a removal would see a moved member twice;
        // every member still live must be a link holding the hub.
        // At least one read, even where the writer ends before this thread
        // is first scheduled (two cores, a loaded machine).
        let mut reads = 0;
        while reads == 0 || !stop.load(std::sync::atomic::Ordering::Acquire) {
            let inc = space.incoming(hub).unwrap();
            let mut seen = std::collections::HashSet::new();
            for &l in inc.iter() {
                assert!(seen.insert(l), "{l:?} twice in one read");
                if let Some(out) = space.outgoing(l) {
                    assert_eq!(out[0], hub, "{l:?} does not contain the hub");
                }
            }
            reads += 1;
        }
        assert!(reads > 0);
    });
    check_invariants(&space.read().unwrap());
}

#[test]
fn a_base_and_its_child_under_concurrent_change_stay_consistent() {
    let base = AtomSpace::new();
    let child = AtomSpace::new_child(&[&base]).unwrap();
    thread::scope(|scope| {
        for seed in 0..4u64 {
            let (base, child) = (&base, &child);
            scope.spawn(move || {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                let space = if seed % 2 == 0 { base } else { child };
                for _ in 0..5000 {
                    let name = format!("n{}", rng.gen_range(0..100));
                    match rng.gen_range(0..6) {
                        0 | 1 => {
                            let _ = space.add_node(CONCEPT_NODE, &name);
                        }
                        2 | 3 => {
                            let a = space.get_node(CONCEPT_NODE, &name);
                            let b = space.get_node(CONCEPT_NODE, &format!("n{}", rng.gen_range(0..100)));
                            if let (Some(a), Some(b)) = (a, b) {
                                match space.add_link(LIST_LINK, &[a, b]) {
                                    Ok(_) | Err(Error::InvalidHandle(_)) => {}
                                    Err(e) => panic!("{e}"),
                                }
                            }
                        }
                        _ => {
                            if let Some(h) = space.get_node(CONCEPT_NODE, &name) {
                                match space.extract(h, rng.gen_bool(0.5)) {
                                    Ok(()) | Err(Error::InvalidHandle(_)) | Err(Error::HasIncoming { .. }) => {}
                                    Err(e) => panic!("{e}"),
                                }
                            }
                        }
                    }
                }
            });
        }
    });
    for space in [&base, &child] {
        for h in space.handles_by_type(ATOM, true).collect::<Vec<_>>() {
            if let Some(out) = space.outgoing(h) {
                for &m in out.iter() {
                    assert!(space.contains(m), "{h:?} has a member {m:?} its space does not see");
                    assert!(space.incoming(m).unwrap().contains(&h), "{h:?} is missing from the incoming set of {m:?}");
                }
            }
            for &l in space.incoming(h).unwrap().iter() {
                assert!(space.outgoing(l).unwrap().contains(&h));
            }
        }
    }
    drop(child);
    check_invariants(&base.read().unwrap());
}

#[test]
fn lookups_during_dedupe_table_rebuilds_never_miss() {
    // Add/extract churn leaves removed markers that make the tables rebuild
    // again and again while another thread looks present nodes up.
    let space = AtomSpace::new();
    let stable: Vec<(String, Handle)> = (0..64).map(|i| (format!("stable{i}"), space.add_node(CONCEPT_NODE, &format!("stable{i}")).unwrap())).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    thread::scope(|scope| {
        scope.spawn(|| {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let h = space.add_node(CONCEPT_NODE, &format!("churn{i}")).unwrap();
                space.extract(h, false).unwrap();
                i += 1;
            }
        });
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(2) {
            for (name, h) in &stable {
                assert_eq!(space.get_node(CONCEPT_NODE, name), Some(*h), "{name} missed during a rebuild");
                assert_eq!(space.get_node(CONCEPT_NODE, "absent"), None);
                // Allocations of a table header's size would reuse a freed header.
                std::hint::black_box(Box::new([0usize; 3]));
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

#[test]
fn a_link_seen_is_in_its_members_incoming_sets() {
    let space = AtomSpace::new();
    let members: Vec<Handle> = (0..100).map(|i| space.add_node(CONCEPT_NODE, &format!("m{i}")).unwrap()).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut missing = 0;
    thread::scope(|scope| {
        scope.spawn(|| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let (a, b) = (members[rng.gen_range(0..100)], members[rng.gen_range(0..100)]);
                match space.get_link(LIST_LINK, &[a, b]) {
                    Some(l) => {
                        let _ = space.extract(l, false);
                    }
                    None => {
                        space.add_link(LIST_LINK, &[a, b]).unwrap();
                    }
                }
            }
        });
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(10);
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(1500) {
            let (a, b) = (members[rng.gen_range(0..100)], members[rng.gen_range(0..100)]);
            if let Some(l) = space.get_link(LIST_LINK, &[a, b]) {
                // Found means added: it is in both members' incoming sets,
                // unless it was extracted in between.
                if !space.incoming(a).unwrap().contains(&l) && space.contains(l) {
                    missing += 1;
                }
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(missing, 0, "links found by content but missing from their members' incoming sets");
}

#[test]
fn lookups_and_adds_stay_exact_while_tables_grow_outside_the_lock() {
    // Enough distinct atoms that every shard's node and link tables grow
    // several times while other threads add, extract and look up: each
    // growth is built from the records without the lock and replays what
    // changed meanwhile.
    const PER_THREAD: u32 = 20_000;
    let space = AtomSpace::new();
    let kept: Vec<Vec<(Handle, Handle)>> = thread::scope(|scope| {
        let workers: Vec<_> = (0..4u32)
            .map(|t| {
                let space = &space;
                scope.spawn(move || {
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(u64::from(t));
                    let mut kept = Vec::new();
                    let mut prev = space.add_node(CONCEPT_NODE, &format!("{t}-start")).unwrap();
                    for i in 0..PER_THREAD {
                        let n = space.add_node(CONCEPT_NODE, &format!("{t}-{i}")).unwrap();
                        let l = space.add_link(LIST_LINK, &[prev, n]).unwrap();
                        // Found at once, by the lock-free lookups.
                        assert_eq!(space.get_node(CONCEPT_NODE, &format!("{t}-{i}")), Some(n));
                        assert_eq!(space.get_link(LIST_LINK, &[prev, n]), Some(l));
                        if rng.gen_bool(0.2) {
                            space.extract(l, false).unwrap();
                            assert_eq!(space.get_link(LIST_LINK, &[prev, n]), None);
                        } else {
                            kept.push((n, l));
                        }
                        prev = n;
                        if i % 1000 == 999 {
                            // Everything kept so far is still found, and adding
                            // it again gives the same atom.
                            for &(n, l) in kept.iter().step_by(97) {
                                let name = space.name(n).unwrap();
                                assert_eq!(space.add_node(CONCEPT_NODE, name).unwrap(), n);
                                let out = space.outgoing(l).unwrap().to_vec();
                                assert_eq!(space.add_link(LIST_LINK, &out).unwrap(), l);
                            }
                        }
                    }
                    kept
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let links: usize = kept.iter().map(Vec::len).sum();
    assert_eq!(space.num_links(), links);
    assert_eq!(space.num_nodes(), 4 * (PER_THREAD as usize + 1));
    for &(n, l) in kept.iter().flatten() {
        assert_eq!(space.get_node(CONCEPT_NODE, space.name(n).unwrap()), Some(n));
        assert_eq!(space.get_link(LIST_LINK, space.outgoing(l).unwrap()), Some(l));
    }
    check_invariants(&space.read().unwrap());
}
