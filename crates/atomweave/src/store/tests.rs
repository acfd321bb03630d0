use super::incoming::Distinct;
use super::record::same_bytes;
use super::slots::CHUNK;
use super::truth::simple_bits;
use super::*;
use crate::value::TruthValue;

/// `same_bytes` is `==` on bytes: every length up to 24 against every
/// other, and every one-byte change of every position.
#[test]
fn same_bytes_is_byte_equality() {
    let base: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
    for n in 0..=24 {
        for m in 0..=24 {
            assert_eq!(same_bytes(&base[..n], &base[..m]), n == m, "{n} {m}");
        }
        for at in 0..n {
            let mut other = base[..n].to_vec();
            other[at] ^= 0x40;
            assert!(!same_bytes(&base[..n], &other), "{n} {at}");
            assert!(same_bytes(&other, &other.clone()));
        }
    }
}
use crate::types::{CONCEPT_NODE, LIST_LINK};
use std::mem::offset_of;

/// A simple truth value set over a count (one kept beside its entry) or
/// a stream forgets it, and
/// one set again over a simple one finds nothing to forget.
#[test]
fn a_truth_value_forgets_the_count_or_stream_it_replaces() {
    let store = Store::new();
    let recs = &store.recs;
    let hash = recs.hash_node(CONCEPT_NODE, "a");
    let mut sh = store.write(Records::home_of_hash(hash));
    let h = recs.add_node_in(&mut sh, hash, CONCEPT_NODE, "a", false).unwrap();
    let simple = TruthValue::simple(0.5, 0.25);
    recs.set_tv_in(&mut sh, h, TruthValue::count(0.1, 0.25, 3.0), false).unwrap();
    assert_eq!(sh.tv_counts.len(), 1);
    recs.set_tv_in(&mut sh, h, simple, false).unwrap();
    assert!(sh.tv_counts.is_empty(), "the count outlived its mark");
    recs.set_tv_stream_in(&mut sh, h, StreamValue::random(2), false).unwrap();
    recs.set_tv_in(&mut sh, h, TruthValue::count(0.1, 0.25, 4.0), false).unwrap();
    assert!(!sh.has_tv_streams(), "the stream outlived its mark");
    recs.set_tv_in(&mut sh, h, simple, false).unwrap();
    recs.set_tv_in(&mut sh, h, simple, false).unwrap();
    assert!(sh.tv_counts.is_empty() && !sh.has_tv_streams());
    assert!(matches!(recs.get_tv_in(&sh, h), Some(TvEntry::Tv(tv)) if tv == simple));
    // A count over a count, a stream over a count and over a stream.
    let count = TruthValue::count(0.1, 0.25, 5.0);
    recs.set_tv_in(&mut sh, h, TruthValue::count(0.1, 0.25, 1.0), false).unwrap();
    recs.set_tv_in(&mut sh, h, count, false).unwrap();
    assert!(matches!(recs.get_tv_in(&sh, h), Some(TvEntry::Tv(tv)) if tv == count));
    recs.set_tv_stream_in(&mut sh, h, StreamValue::random(2), false).unwrap();
    recs.set_tv_stream_in(&mut sh, h, StreamValue::random(2), false).unwrap();
    assert!(sh.tv_counts.is_empty() && sh.has_tv_streams());
    // A stream whose mark a racing lock-free store overwrote goes too.
    let entry = recs.tv_pages[h.shard()].entry(h.local()).unwrap();
    entry.store(simple_bits(0.5, 0.25), Ordering::Release);
    recs.set_tv_in(&mut sh, h, simple, false).unwrap();
    assert!(!sh.has_tv_streams(), "a stream outlived its lost mark");
}

/// A count truth value is kept in its entry when it comes back bit for
/// bit from there, and beside it otherwise; either way it reads back as
/// set, and a count that moves between the two leaves nothing behind.
#[test]
fn count_truth_values_read_back_exactly_inline_or_not() {
    let store = Store::new();
    let recs = &store.recs;
    let hash = recs.hash_node(CONCEPT_NODE, "c");
    let mut sh = store.write(Records::home_of_hash(hash));
    let h = recs.add_node_in(&mut sh, hash, CONCEPT_NODE, "c", false).unwrap();
    let inline = [(1.0, 0.0, 225.0), (0.5, 0.25, 0.0), (1.0, 0.0, 4294967295.0), (f64::NAN, 1.0, 7.0), (-2.5, f64::INFINITY, 1.0)];
    let beside = [
        (1.0, 0.0, 4294967296.0),
        (1.0, 0.0, 1.5),
        (1.0, 0.0, -1.0),
        (1.0, 0.0, -0.0),
        (0.1, 0.0, 3.0),
        (1.0, 0.3, 3.0),
        (1.0, 0.0, f64::NAN),
        (1.0, 0.0, f64::INFINITY),
    ];
    let bits = |tv: TruthValue| tv.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    for (set, kept_beside) in inline.iter().map(|c| (c, false)).chain(beside.iter().map(|c| (c, true))) {
        let tv = TruthValue::count(set.0, set.1, set.2);
        recs.set_tv_in(&mut sh, h, tv, false).unwrap();
        assert_eq!(sh.tv_counts.len(), usize::from(kept_beside), "{set:?}");
        let Some(TvEntry::Tv(read)) = recs.get_tv_in(&sh, h) else { panic!("no truth value") };
        assert_eq!(bits(read), bits(tv), "{set:?}");
        assert_eq!(recs.unlocked_tv(h).map(bits), (!kept_beside).then(|| bits(tv)), "{set:?}");
    }
    // Incremented out of the entry and back into it.
    recs.set_tv_in(&mut sh, h, TruthValue::count(1.0, 0.0, 4294967294.0), false).unwrap();
    let tv = recs.increment_count_in(&mut sh, h, 2.0, false, || TruthValue::DEFAULT).unwrap();
    assert_eq!((tv.count_of(), sh.tv_counts.len()), (4294967296.0, 1));
    let tv = recs.increment_count_in(&mut sh, h, -2.0, false, || TruthValue::DEFAULT).unwrap();
    assert_eq!((tv.count_of(), sh.tv_counts.len()), (4294967294.0, 0), "the count beside the entry outlived it");
}

/// A value that holds the last handle on a child space of its atom's
/// own space: dropping the child lets go of the base atoms its links
/// hold, under the base's shard locks, so the value must go once the
/// setter, remover or extractor has let go of its own (the lock is not
/// reentrant: dropped under it, this waits for itself).
#[test]
fn a_value_holding_a_child_of_its_own_space_drops_outside_the_lock() {
    use crate::types::PREDICATE_NODE;
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let base = crate::AtomSpace::new();
        let x = base.add_node(CONCEPT_NODE, "x").unwrap();
        // An atom in x's shard, whose lock the child's release takes.
        let a = (0..).map(|i| base.add_node(CONCEPT_NODE, &format!("a{i}")).unwrap()).find(|a| a.shard() == x.shard()).unwrap();
        let key = base.add_node(PREDICATE_NODE, "k").unwrap();
        let held = || {
            let child = crate::AtomSpace::new_child(&[&base]).unwrap();
            child.add_link(LIST_LINK, &[x]).unwrap();
            Value::Space(child.into())
        };
        base.set_value(a, key, held()).unwrap();
        base.set_value(a, key, Value::float(vec![1.0])).unwrap();
        base.set_value(a, key, held()).unwrap();
        base.remove_value(a, key).unwrap();
        base.set_value(a, key, held()).unwrap();
        base.extract(a, true).unwrap();
        assert_eq!((base.incoming_size(x), base.contains(a)), (Some(0), false));
        // A child hiding a base atom drops the values it set on it: one
        // that holds a child of this child, whose link holds the child's
        // own atom in that shard.
        let b = base.add_node(CONCEPT_NODE, "b").unwrap();
        let child = crate::AtomSpace::new_child(&[&base]).unwrap();
        let y = (0..).map(|i| child.add_node(CONCEPT_NODE, &format!("y{i}")).unwrap()).find(|y| y.shard() == b.shard()).unwrap();
        let grandchild = crate::AtomSpace::new_child(&[&child]).unwrap();
        grandchild.add_link(LIST_LINK, &[y]).unwrap();
        child.set_value(b, key, Value::Space(grandchild.into())).unwrap();
        child.extract(b, true).unwrap();
        assert_eq!((child.incoming_size(y), child.contains(b), base.contains(b)), (Some(0), false, true));
        done.send(()).unwrap();
    });
    finished.recv_timeout(std::time::Duration::from_secs(30)).expect("a value dropped under the shard lock it waits for");
}

/// Lock-free copies of an incoming set (the seqlock) while another
/// thread adds and extracts links: each copy is whole (no link twice,
/// each holding the atom, or extracted since), and the last is exact.
#[test]
fn incoming_copies_are_whole_while_links_change() {
    let space = crate::AtomSpace::new();
    let x = space.add_node(CONCEPT_NODE, "x").unwrap();
    let n: usize = if cfg!(miri) { 24 } else { 3000 };
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..n {
                let y = space.add_node(CONCEPT_NODE, &i.to_string()).unwrap();
                let l = space.add_link(LIST_LINK, &[x, y]).unwrap();
                if i % 3 == 0 {
                    space.extract(l, false).unwrap();
                }
            }
        });
        for _ in 0..n {
            let links = space.incoming(x).unwrap();
            let mut seen: Vec<Handle> = links.to_vec();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), links.len(), "a link twice in one copy");
            for l in seen {
                assert!(space.outgoing(l).is_none_or(|out| out.contains(&x)), "a link without the atom");
            }
        }
    });
    assert_eq!(space.incoming(x).unwrap().len(), n - n.div_ceil(3));
}

#[test]
fn lanes_take_their_own_blocks_and_chunks() {
    let store = Store::new();
    let (recs, s) = (&store.recs, 3);
    let mut sh = store.write(s);
    let mut alloc = |l| sh.alloc_slot(l, &recs.records[s], &recs.hashes[s], &recs.slots()[s], CONCEPT_NODE).unwrap();
    let (a0, b0, a1, b1) = (alloc(0), alloc(1), alloc(0), alloc(1));
    assert_eq!((a1, b1), (a0 + 1, b0 + 1), "each lane fills its own block in order");
    assert_ne!(a0 / BLOCK, b0 / BLOCK, "two lanes never share a block");
    let sh = &mut *sh;
    let mut name = |l: usize, name: &[u8]| recs.names[s].push_in(&mut sh.lanes[l].names, &mut sh.names_end, CHUNK, name).unwrap();
    let (n0, n1, n2) = (name(0, b"zero"), name(1, b"one"), name(0, b"zero again"));
    assert_eq!(n2, n0 + 4, "a lane appends in its chunk");
    assert!(n1.abs_diff(n0) as usize >= CHUNK, "lanes append in chunks of their own");
    assert_eq!(recs.names[s].get(n2 as usize, 10), b"zero again");
    // A type's count sums its lanes, whichever lane an atom leaves through.
    sh.lane_slots(1, CONCEPT_NODE).live -= 3;
    assert_eq!(Records::count_in(sh, CONCEPT_NODE), 1);
}

#[test]
fn the_fields_every_add_writes_share_the_lock_line() {
    let cell: CachePadded<ShardLock<Shard>> = CachePadded::new(ShardLock::new(Shard::default()));
    let lock = &*cell as *const ShardLock<Shard> as usize;
    assert_eq!(lock % 64, 0, "the lock starts a cache line");
    let data = cell.data_ptr() as usize - lock;
    let ends = [
        offset_of!(Shard, node_book) + size_of::<DedupeBook>(),
        offset_of!(Shard, link_book) + size_of::<DedupeBook>(),
        offset_of!(Shard, names_end) + size_of::<usize>(),
        offset_of!(Shard, outgoing_end) + size_of::<usize>(),
        offset_of!(Shard, nodes) + size_of::<u32>(),
        offset_of!(Shard, links) + size_of::<u32>(),
    ];
    assert!(data + ends.iter().max().unwrap() <= 64, "shard data at {data}, hot fields end at {ends:?}");
}

#[test]
fn distinct_gives_each_members_first_position_in_order() {
    let hs = |v: &[u32]| v.iter().map(|&x| Handle(x)).collect::<Vec<_>>();
    assert_eq!(Distinct::of(&[]).collect::<Vec<_>>(), Vec::<usize>::new());
    assert_eq!(Distinct::of(&hs(&[7, 7])).collect::<Vec<_>>(), vec![0]);
    assert_eq!(Distinct::of(&hs(&[3, 9, 3, 1, 9])).collect::<Vec<_>>(), vec![0, 1, 3]);
    // Past 16 members the list is sorted, not scanned: same answer.
    let long: Vec<u32> = (0..40).map(|i| (i * 7) % 13).collect();
    let want: Vec<usize> = (0..long.len()).filter(|&i| !long[..i].contains(&long[i])).collect();
    assert_eq!(want.len(), 13);
    assert_eq!(Distinct::of(&hs(&long)).collect::<Vec<_>>(), want);
}
