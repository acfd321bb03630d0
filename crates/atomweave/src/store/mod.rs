//! The storage shared by [`AtomTable`](crate::AtomTable) and [`AtomSpace`](crate::AtomSpace).
//!
//! Atoms are spread over [`SHARDS`] shards by content hash. Each shard owns:
//! - a record per slot, one `u64` (type, flags, length, arena offset) in a
//!   [`SegVec`], readable without a lock ([`record`]);
//! - append-only arenas of node names and outgoing sets ([`Arena`]), also
//!   readable without a lock, written only under the shard's write lock;
//! - truth-value pages of 16-byte atomic entries ([`truth`]): simple
//!   truth values are read, and replaced, without a lock;
//! - behind its lock: the dedupe tables (slot numbers, hashed by content;
//!   nodes apart from links, so re-adding a node probes a small, cache-hot
//!   table), the arenas' fill marks, the incoming-set entry pool
//!   ([`incoming`]), the values of atoms that have any ([`values`]), and
//!   per-type slot blocks ([`slots`]).
//!
//! This file holds the three structures and what spans them: [`Store`] (a
//! space's atoms), [`Records`] (the lock-free half), [`Shard`] (one
//! shard's locked half), and the hierarchy's slot numbering. Adding is in
//! [`insert`] and [`insert_batch`], removing in [`extract`], locking in
//! [`locks`].
//!
//! **Invariant:** several shard locks are always taken in increasing shard
//! number (see [`LockSet`]); no lock is held across calls back to the user.
//! Slot numbers are never reused within a space, so a dead handle stays dead.

mod extract;
mod incoming;
mod insert;
mod insert_batch;
mod locks;
mod record;
mod slots;
mod truth;
mod values;

#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use crossbeam_utils::CachePadded;
use foldhash::fast::FixedState;
use hashbrown::HashMap;
use portable_atomic::AtomicU128;
use smallvec::SmallVec;
use std::hash::{BuildHasher, Hasher};

use crate::arena::Arena;
use crate::dedupe::{Dedupe, DedupeBook};
use crate::handle::{Handle, LOCAL_LIMIT, SHARDS};
use crate::lock::ShardLock;
use crate::segvec::SegVec;
use crate::types::Type;
use crate::value::{StreamValue, Value};

use incoming::Pool;
use slots::{blocks_of_kind, Lane, LaneSlots, TypeSlots, LANES};
use truth::TvPages;

pub(crate) use locks::{AllShards, ShardAccess};
pub use record::Slot;
pub(crate) use record::{Rec, BLOCK};
pub(crate) use truth::TvEntry;

/// One shard's lock-protected state.
#[derive(Default)]
#[repr(C)]
pub struct Shard {
    // The shard-wide fields every add writes come first: with the lock word
    // before them, one cache line, so that two threads adding to a shard in
    // turn pass that one line between their cores rather than one per field
    // (`C` keeps the order; a test checks the line). The add's slot block,
    // slots and arena room are the lane's, lines of their own.
    /// Counts of the dedupe tables in `Records`.
    node_book: DedupeBook,
    link_book: DedupeBook,
    /// Fill marks of this shard's name and outgoing arenas. They survive
    /// `clear`: lock-free readers may still hold slices below them.
    names_end: usize,
    outgoing_end: usize,
    nodes: u32,
    links: u32,
    by_type: Vec<TypeSlots>,
    /// Boxed: aligned to a line in place, they would move the shard's
    /// fields off the lock's line.
    lanes: Box<[Lane; LANES]>,
    pool: Pool,
    /// `[mean, count]` of count truth values (their entries are marked).
    tv_counts: HashMap<u32, [f64; 2], FixedState>,
    /// The FormulaTruthValues of stream-marked entries.
    tv_streams: HashMap<u32, StreamValue, FixedState>,
    values: HashMap<u32, KeyValues, FixedState>,
    /// One past the highest slot this store has used in the shard.
    high: u32,
    /// Slots of base atoms that this (child) store has flagged: values set
    /// on them here, or hidden. `clear` resets exactly these.
    overlay: Vec<u32>,
}

/// What an atom holds besides its truth value: most atoms that have any
/// have one (an attention value, a weight), kept in the map's entry
/// itself, with no allocation of its own to make, free and miss on.
pub(crate) type KeyValues = SmallVec<[(Handle, Value); 1]>;

/// The atoms of one space: lock-free records beside locked shards.
pub(crate) struct Store {
    pub(crate) recs: Records,
    pub(crate) shards: Box<[CachePadded<ShardLock<Shard>>]>,
}

/// The lock-free half of a store: slot records and the content hasher.
pub struct Records {
    records: [SegVec<Slot>; SHARDS],
    /// Each slot's content hash, its low 32 bits, the part dedupe tables
    /// use: growing a table or dropping an entry reads it here instead of
    /// hashing the atom's content again (4 bytes per atom; rehashing from
    /// content was a fifth of the instructions of adding links).
    hashes: [SegVec<AtomicU32>; SHARDS],
    /// Incoming-set pool cells and sequence counters, per shard.
    pool_cells: [SegVec<AtomicU32>; SHARDS],
    tv_pages: [TvPages; SHARDS],
    inc_seq: [CachePadded<AtomicU64>; SHARDS],
    /// Content to slot, for nodes and for links, probed without a lock.
    nodes_by_content: [Dedupe; SHARDS],
    links_by_content: [Dedupe; SHARDS],
    names: [Arena<AtomicU8>; SHARDS],
    outgoing: [Arena<AtomicU32>; SHARDS],
    hasher: FixedState,
    /// Slot numbers per shard. Shared by every space of a hierarchy (a
    /// space and its child spaces), so their handles never collide. Set at
    /// the first atom (or child): until then a root store may take another
    /// hierarchy's numbers instead ([`Store::join`]), which is how a child
    /// space comes to have bases made as separate roots.
    next_slot: OnceLock<SlotSet>,
}

type SlotSet = Arc<[SlotNumbers; SHARDS]>;

/// A shard's slot numbers in a hierarchy: the next never given out, and
/// blocks given back by spaces that are gone, which are taken first. A
/// short-lived child (a scratch frame per grounded call) so reuses the
/// same few blocks, where fresh numbers would grow every later child's
/// arrays (sized up to the highest number) and run the hierarchy out of
/// handles.
#[derive(Default)]
pub(crate) struct SlotNumbers {
    next: AtomicU32,
    /// How many blocks `returned` holds: read without its lock on the add path.
    returned_count: AtomicU32,
    returned: std::sync::Mutex<Vec<u32>>,
}

impl SlotNumbers {
    /// The first slot of a block of [`BLOCK`] free slots; `None` when the
    /// shard's numbers are used up.
    fn take_block(&self) -> Option<u32> {
        if self.returned_count.load(Ordering::Relaxed) > 0 {
            let mut returned = self.returned.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(b) = returned.pop() {
                self.returned_count.store(returned.len() as u32, Ordering::Relaxed);
                return Some(b);
            }
        }
        let start = self.next.fetch_add(BLOCK, Ordering::Relaxed);
        if start >= LOCAL_LIMIT - BLOCK {
            self.next.store(LOCAL_LIMIT, Ordering::Relaxed);
            return None;
        }
        Some(start)
    }

    /// Gives back the blocks of a store that is gone.
    fn give_back(&self, blocks: impl IntoIterator<Item = u32>) {
        let mut returned = self.returned.lock().unwrap_or_else(|e| e.into_inner());
        returned.extend(blocks);
        self.returned_count.store(returned.len() as u32, Ordering::Relaxed);
    }
}

/// A store that goes gives its slot blocks back to its hierarchy: nothing
/// refers to its handles any more (a child space unregisters its links from
/// its bases' atoms before its store goes).
impl Drop for Store {
    fn drop(&mut self) {
        let Some(slots) = self.recs.next_slot.get() else { return };
        for (s, shard) in self.shards.iter_mut().enumerate() {
            let shard = shard.get_mut();
            slots[s].give_back(shard.by_type.iter().flat_map(|t| t.blocks.iter().copied()));
        }
    }
}

/// Shard of a content hash. Uses middle bits: hashbrown indexes buckets with
/// the low bits and tags them with the top seven.
#[inline]
fn shard_of_hash(hash: u64) -> usize {
    ((hash >> 32) as usize) & (SHARDS - 1)
}

/// The part of a content hash that dedupe tables use and slots keep.
#[inline]
fn short(hash: u64) -> u32 {
    hash as u32
}

/// Bit set of shards.
#[derive(Copy, Clone, Default)]
pub(crate) struct ShardMask(u32);

impl ShardMask {
    pub(crate) fn with(mut self, s: usize) -> Self {
        self.0 |= 1 << s;
        self
    }
    pub(crate) fn all() -> Self {
        ShardMask(u32::MAX >> (32 - SHARDS))
    }
    pub(crate) fn of(handles: &[Handle]) -> Self {
        handles.iter().fold(ShardMask::default(), |m, h| m.with(h.shard()))
    }
}

/// Sizes of the per-atom structures (see `atomweave::structure_sizes`).
pub(crate) fn structure_sizes() -> Vec<(&'static str, usize)> {
    use std::mem::size_of;
    vec![
        ("handle", size_of::<Handle>()),
        ("slot: record (type, flags, length, arena offset) and incoming-set header", size_of::<Slot>()),
        ("stored content hash", size_of::<u32>()),
        ("incoming-set entry", size_of::<Handle>()),
        ("outgoing-set entry", size_of::<Handle>()),
        ("dedupe-table entry (tables are kept a third to a half full)", size_of::<u32>()),
        ("type-block entry, per 64 atoms", size_of::<u32>()),
        ("truth value, when not the default (pages of 64 per slot block)", size_of::<AtomicU128>()),
        ("value (one key/value pair, plus its data)", size_of::<(Handle, Value)>()),
    ]
}

impl Store {
    pub(crate) fn new() -> Self {
        Self::with_slots(OnceLock::new())
    }

    /// A store for a child space of `base`: it draws slot numbers from the
    /// same counters, so handles of the whole hierarchy never collide.
    pub(crate) fn child_of(base: &Store) -> Self {
        Self::with_slots(OnceLock::from(base.recs.slots().clone()))
    }

    /// Makes this store draw its slot numbers from `other`'s hierarchy, if
    /// it has drawn none of its own yet (no atom was ever added to it): then
    /// it and `other` belong to one hierarchy. Whether they now do.
    pub(crate) fn join(&self, other: &Store) -> bool {
        let theirs = other.recs.slots();
        let _ = self.recs.next_slot.set(theirs.clone());
        self.same_hierarchy(other)
    }

    /// Has this store drawn slot numbers (held an atom, or made a child)?
    pub(crate) fn numbered(&self) -> bool {
        self.recs.next_slot.get().is_some()
    }

    fn with_slots(next_slot: OnceLock<SlotSet>) -> Self {
        Store {
            recs: Records {
                records: std::array::from_fn(|_| SegVec::new()),
                hashes: std::array::from_fn(|_| SegVec::new()),
                tv_pages: Default::default(),
                pool_cells: std::array::from_fn(|_| SegVec::new()),
                inc_seq: std::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))),
                nodes_by_content: std::array::from_fn(|_| Dedupe::new()),
                links_by_content: std::array::from_fn(|_| Dedupe::new()),
                names: std::array::from_fn(|_| Arena::new()),
                outgoing: std::array::from_fn(|_| Arena::new()),
                hasher: FixedState::with_seed(0x5eed_a70e_eeaf_0001),
                next_slot,
            },
            shards: (0..SHARDS).map(|_| CachePadded::new(ShardLock::new(Shard::default()))).collect(),
        }
    }

    /// Do the two stores belong to one hierarchy (share slot numbering)?
    pub(crate) fn same_hierarchy(&self, other: &Store) -> bool {
        match (self.recs.next_slot.get(), other.recs.next_slot.get()) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => std::ptr::eq(self, other),
        }
    }

    /// Grows shard `s`'s node (or link) dedupe table if a writer asked for
    /// it (`find_or_vacancy` with `defer`). Called with no lock held.
    #[inline]
    pub(crate) fn grow_if_wanted(&self, s: usize, links: bool) {
        if self.recs.dedupe(s, links).growth_wanted() {
            self.grow_dedupe(s, links);
        }
    }

    /// Grows the table without holding the lock while the new table is
    /// built, so that other writers to the shard go on meanwhile (see
    /// `dedupe::Growth`).
    #[cold]
    #[inline(never)]
    fn grow_dedupe(&self, s: usize, links: bool) {
        let table = self.recs.dedupe(s, links);
        let (ticket, blocks) = {
            let mut sh = self.write(s);
            let Some(ticket) = table.begin_growth(sh.book(links)) else { return };
            (ticket, blocks_of_kind(&sh.by_type, links).copied().collect::<Vec<u32>>())
        };
        let built = Dedupe::build(ticket, self.recs.live_of_kind(s, blocks.into_iter(), links));
        table.finish_growth(self.write(s).book(links), built);
    }

    /// Drops every atom; slot numbers keep counting up so old handles stay dead.
    pub(crate) fn clear(&mut self) {
        let (recs, mut all) = self.split_mut();
        for s in 0..SHARDS {
            drop(recs.clear_shard(all.shard(s), s));
        }
    }

    /// Frees the dedupe tables that growth replaced in shard `s`: with
    /// exclusive access no lock-free reader can be probing them.
    pub(crate) fn free_retired(&mut self, s: usize) {
        self.recs.nodes_by_content[s].free_retired();
        self.recs.links_by_content[s].free_retired();
    }

    /// Does the store hold nothing at all: no atom, and no value, truth
    /// value or count kept for a base atom?
    pub(crate) fn holds_nothing(&self) -> bool {
        (0..SHARDS).all(|s| self.read(s).is_empty())
    }

    /// Bytes this store has allocated, by its own accounting.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.heap_parts().iter().map(|(_, bytes)| bytes).sum()
    }

    /// [`heap_bytes`](Self::heap_bytes) by what holds them.
    pub(crate) fn heap_parts(&self) -> [(&'static str, usize); 9] {
        let mut parts = [
            ("records", 0),
            ("hashes", 0),
            ("dedupe tables", 0),
            ("names", 0),
            ("outgoing sets", 0),
            ("incoming sets", 0),
            ("truth values", 0),
            ("values", 0),
            ("type lists", 0),
        ];
        for s in 0..SHARDS {
            let sh = self.shards[s].read();
            let add = [
                self.recs.records[s].allocated_bytes(),
                self.recs.hashes[s].allocated_bytes(),
                self.recs.nodes_by_content[s].allocated_bytes() + self.recs.links_by_content[s].allocated_bytes(),
                self.recs.names[s].allocated_bytes(),
                self.recs.outgoing[s].allocated_bytes(),
                self.recs.pool_cells[s].allocated_bytes() + sh.pool.free.iter().map(|f| f.capacity() * 4).sum::<usize>(),
                self.recs.tv_pages[s].allocated_bytes() + sh.tv_counts.allocation_size() + sh.tv_streams.allocation_size(),
                sh.values.allocation_size()
                    + sh.values.values().filter(|kv| kv.spilled()).map(|kv| kv.capacity() * std::mem::size_of::<(Handle, Value)>()).sum::<usize>(),
                sh.by_type.capacity() * std::mem::size_of::<TypeSlots>()
                    + sh.by_type.iter().map(|t| t.blocks.capacity() * 4).sum::<usize>()
                    + sh.lanes.iter().map(|l| l.slots.capacity() * std::mem::size_of::<LaneSlots>()).sum::<usize>(),
            ];
            for (part, bytes) in parts.iter_mut().zip(add) {
                part.1 += bytes;
            }
        }
        parts
    }
}

impl Records {
    /// The hierarchy's slot numbers, set now if this store had none.
    #[inline]
    fn slots(&self) -> &SlotSet {
        self.next_slot.get_or_init(|| Arc::new(std::array::from_fn(|_| SlotNumbers::default())))
    }

    #[inline]
    pub(crate) fn hash_node(&self, t: Type, name: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write_u16(t.0);
        h.write(name.as_bytes());
        h.finish()
    }

    #[inline]
    pub(crate) fn hash_link(&self, t: Type, out: &[Handle]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write_u16(t.0);
        h.write_usize(out.len());
        for x in out {
            h.write_u32(x.0);
        }
        h.finish()
    }

    #[inline]
    pub(crate) fn rec(&self, h: Handle) -> Option<Rec> {
        self.live_slot(h).map(|(_, r)| r)
    }

    /// The slot of `h` and its record, if `h` is a live atom of this store.
    #[inline]
    fn live_slot(&self, h: Handle) -> Option<(&Slot, Rec)> {
        let slot = self.records[h.shard()].get(h.local() as usize)?;
        let r = Rec(slot.rec.load(Ordering::Acquire));
        r.live().then_some((slot, r))
    }

    /// The slot of `h`, an atom of this store.
    #[inline]
    fn slot(&self, h: Handle) -> &Slot {
        self.records[h.shard()].get(h.local() as usize).expect("slot of a live atom")
    }

    pub(crate) fn home_of_hash(hash: u64) -> usize {
        shard_of_hash(hash)
    }
}

impl Shard {
    /// Nothing here: no atom, no value, truth value or count of a base atom.
    fn is_empty(&self) -> bool {
        self.nodes == 0 && self.links == 0 && self.overlay.is_empty() && self.values.is_empty() && self.tv_counts.is_empty() && self.tv_streams.is_empty()
    }

    /// Does the shard hold an atom whose truth value is a stream?
    pub(crate) fn has_tv_streams(&self) -> bool {
        !self.tv_streams.is_empty()
    }

    fn book(&mut self, links: bool) -> &mut DedupeBook {
        if links {
            &mut self.link_book
        } else {
            &mut self.node_book
        }
    }
}
