//! Truth values set and read without the shard lock, racing the locked
//! paths: no reader sees half of one value and half of another, and
//! removal, extraction and clearing leave nothing behind.

use std::sync::atomic::{AtomicBool, Ordering};

use atomweave::types::*;
use atomweave::{AtomSpace, Error, Handle, TruthValue};

/// Simple truth values whose confidence is half their (non-zero) strength,
/// so that a torn read, or a zeroed entry, shows.
fn paired(x: u32) -> TruthValue {
    let s = f64::from(x % 1000 + 1) / 1001.0;
    TruthValue::simple(s, s / 2.0)
}

const COUNT: TruthValue = TruthValue::Count { mean: 0.5, confidence: 0.25, count: 2.0 };

fn whole(tv: TruthValue) -> bool {
    match tv {
        TruthValue::Simple { strength, confidence } => tv.is_default() || (strength > 0.0 && confidence == strength / 2.0),
        TruthValue::Count { .. } => tv == COUNT,
    }
}

fn atoms(space: &AtomSpace, prefix: &str, n: usize) -> Vec<Handle> {
    (0..n).map(|i| space.add_node(CONCEPT_NODE, &format!("{prefix}{i}")).unwrap()).collect()
}

#[test]
fn each_path_sets_what_it_is_given() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    // A first value takes the lock (and makes the page); replacing a simple
    // value with a simple one does not. Every kind after every kind:
    for tv in [paired(1), paired(2), COUNT, paired(3), TruthValue::DEFAULT, paired(4), COUNT, TruthValue::DEFAULT, COUNT] {
        space.set_tv(a, tv).unwrap();
        assert_eq!(space.get_tv(a), Some(tv));
    }
    let b = space.add_node(CONCEPT_NODE, "b").unwrap();
    space.set_tv(b, paired(5)).unwrap();
    assert_eq!(space.get_tv(b), Some(paired(5)));
    space.extract(b, false).unwrap();
    assert!(matches!(space.set_tv(b, paired(6)), Err(Error::InvalidHandle(h)) if h == b));
    assert_eq!(space.get_tv(b), None);
}

#[test]
fn readers_never_see_torn_truth_values() {
    // Many atoms, and two: there every read races a write.
    for n in [256, 2] {
        torn_reads(n);
    }
}

fn torn_reads(n: usize) {
    let space = AtomSpace::new();
    let atoms = atoms(&space, "a", n);
    let done = AtomicBool::new(false);
    // The writers start once the reader is reading: on a busy machine the
    // reader's thread could otherwise first run after they are done.
    let reading = AtomicBool::new(false);
    let wait_for_reader = || {
        while !reading.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
    };
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut reads = 0u64;
            while !done.load(Ordering::Relaxed) {
                for &h in &atoms {
                    let tv = space.get_tv(h).unwrap();
                    assert!(whole(tv), "torn truth value {tv:?}");
                    reads += 1;
                }
                reading.store(true, Ordering::Release);
            }
            reads
        });
        // Lock-free stores of simple values...
        let simple = s.spawn(|| {
            wait_for_reader();
            for x in 0..200_000u32 {
                space.set_tv(atoms[x as usize % atoms.len()], paired(x)).unwrap();
            }
        });
        // ...against locked ones (counts, and the default, which resets the
        // entry) and first values after a reset.
        let locked = s.spawn(|| {
            wait_for_reader();
            for x in 0..60_000u32 {
                let tv = [TruthValue::DEFAULT, COUNT, paired(x)][x as usize % 3];
                space.set_tv(atoms[x as usize / 3 % atoms.len()], tv).unwrap();
            }
        });
        simple.join().unwrap();
        locked.join().unwrap();
        done.store(true, Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    // Quiet again: every path still sets exactly what it is given.
    for (i, &h) in atoms.iter().enumerate() {
        let tv = [COUNT, paired(i as u32), TruthValue::DEFAULT][i % 3];
        space.set_tv(h, tv).unwrap();
        assert_eq!(space.get_tv(h), Some(tv));
    }
}

#[test]
fn counts_increment_across_lock_free_replacements() {
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    space.set_tv(a, paired(1)).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            for x in 0..20_000u32 {
                space.set_tv(a, paired(x)).unwrap();
            }
        });
        // Each increment counts on from the count before it, or starts at 1
        // on a simple value: never anything else.
        let mut last = 0.0;
        for _ in 0..20_000 {
            let TruthValue::Count { count, .. } = space.increment_count(a, 1.0).unwrap() else { panic!("not a count") };
            assert!(count == last + 1.0 || count == 1.0, "{last} then {count}");
            last = count;
        }
    });
    let tv = space.get_tv(a).unwrap();
    assert!(whole(tv) || matches!(tv, TruthValue::Count { mean: 1.0, confidence: 0.0, .. }), "{tv:?}");
}

#[test]
fn extraction_and_clear_racing_setters_leave_no_values_behind() {
    let space = AtomSpace::new();
    for round in 0..4 {
        let doomed = atoms(&space, &format!("r{round}-"), 2000);
        for &h in &doomed {
            space.set_tv(h, paired(1)).unwrap();
        }
        std::thread::scope(|s| {
            s.spawn(|| {
                for x in 0..40_000u32 {
                    match space.set_tv(doomed[x as usize % doomed.len()], paired(x)) {
                        Ok(()) | Err(Error::InvalidHandle(_)) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            });
            if round % 2 == 0 {
                for &h in doomed.iter().rev() {
                    space.extract(h, true).unwrap();
                }
            } else {
                space.clear();
            }
        });
        assert_eq!(space.size(), 0);
        assert!(doomed.iter().all(|&h| space.get_tv(h).is_none()));
        // New atoms (on new pages: clear keeps the old ones) take values as ever.
        for (i, h) in atoms(&space, &format!("new{round}-"), 200).into_iter().enumerate() {
            assert_eq!(space.get_tv(h), Some(TruthValue::DEFAULT));
            let tv = [paired(i as u32), COUNT][i % 2];
            space.set_tv(h, tv).unwrap();
            assert_eq!(space.get_tv(h), Some(tv));
        }
        space.clear();
    }
}
