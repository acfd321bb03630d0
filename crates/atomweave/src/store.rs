//! The storage shared by [`AtomTable`](crate::AtomTable) and [`AtomSpace`](crate::AtomSpace).
//!
//! Atoms are spread over [`SHARDS`] shards by content hash. Each shard owns:
//! - a record per slot, one `u64` (type, flags, length, arena offset) in a
//!   [`SegVec`], readable without a lock;
//! - append-only arenas of node names and outgoing sets ([`Arena`]), also
//!   readable without a lock, written only under the shard's write lock;
//! - truth-value pages of 16-byte atomic entries ([`TvPages`]): simple
//!   truth values are read, and replaced, without a lock;
//! - behind its lock: the dedupe tables (slot numbers, hashed by content;
//!   nodes apart from links, so re-adding a node probes a small, cache-hot
//!   table), the arenas' fill marks, the incoming-set entry pool, the
//!   values of atoms that have any, and per-type slot blocks.
//!
//! Slots are handed out in blocks of [`BLOCK`] per type, so the type index is
//! a list of block starts (4 bytes per 64 atoms) and a type scan reads
//! contiguous records. Slot numbers are never reused.
//!
//! Lock order: several shard locks are always taken in increasing shard
//! number (see [`LockSet`]); no lock is held across calls back to the user.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crossbeam_utils::CachePadded;
use foldhash::fast::FixedState;
use hashbrown::HashMap;
use portable_atomic::AtomicU128;
use smallvec::SmallVec;
use std::hash::{BuildHasher, Hasher};

use crate::arena::{Arena, Chunk};
use crate::batch::{LinkBatch, NodeBatch};
use crate::dedupe::{Dedupe, DedupeBook, Vacancy};
use crate::error::{Error, Result};
use crate::handle::{Handle, LOCAL_LIMIT, SHARDS};
use crate::lock::{ReadGuard, ShardLock, WriteGuard};
use crate::segvec::{fit, SegVec, Zeroable};
use crate::table::incremented;
use crate::types::Type;
use crate::value::{StreamValue, TruthValue, Value};
use std::sync::atomic::AtomicU8;

/// Slots per type block.
pub(crate) const BLOCK: u32 = 64;

// `alloc_slot` hands out slots below `LOCAL_LIMIT - BLOCK`; dedupe entries must hold them.
const _: () = assert!(LOCAL_LIMIT - BLOCK <= crate::dedupe::MAX_SLOT + 1);

// Record layout: | flags:4 | type:12 | len:16 | payload:32 |
// `len` is the name length (nodes) or arity (links), LEN_ESCAPE if the real
// length is stored at the front of the arena entry. A zero record is a slot
// that holds no atom. In a child space, the slot of a base atom (slot numbers
// are unique across a hierarchy) holds no atom but may carry HAS_TV and
// HAS_VALUES for values the child set on it, or HIDDEN.
const LEN_SHIFT: u32 = 32;
const TYPE_SHIFT: u32 = 48;
const LEN_ESCAPE: u32 = 0xFFFF;
const LIVE: u64 = 1 << 60;
const HAS_TV: u64 = 1 << 61;
const HAS_VALUES: u64 = 1 << 62;
const IS_LINK: u64 = 1 << 63;
/// In a child space, the record of a base atom it has hidden (extracted for itself).
const HIDDEN: u64 = IS_LINK;

/// A decoded record.
#[derive(Copy, Clone)]
pub(crate) struct Rec(u64);

impl Rec {
    #[inline]
    pub(crate) fn live(self) -> bool {
        self.0 & LIVE != 0
    }
    #[inline]
    pub(crate) fn ty(self) -> Type {
        Type(((self.0 >> TYPE_SHIFT) & 0xFFF) as u16)
    }
    #[inline]
    pub(crate) fn is_link(self) -> bool {
        self.0 & IS_LINK != 0
    }
    #[inline]
    pub(crate) fn has_tv(self) -> bool {
        self.0 & HAS_TV != 0
    }
    #[inline]
    fn has_values(self) -> bool {
        self.0 & HAS_VALUES != 0
    }
    #[inline]
    fn len_field(self) -> u32 {
        ((self.0 >> LEN_SHIFT) & 0xFFFF) as u32
    }
    #[inline]
    fn payload(self) -> u32 {
        self.0 as u32
    }
}

/// Incoming-set header. `meta` holds the length (low 27 bits) and the pool
/// block class (high 5 bits, capacity `1 << class`). With class 0 the set has
/// at most one member, kept inline in `first`; otherwise `first` is the pool
/// offset of the block.
#[derive(Copy, Clone)]
struct Inc {
    first: Handle,
    meta: u32,
}

const INC_LEN_MASK: u32 = (1 << 27) - 1;

impl Inc {
    #[inline]
    fn pack(self) -> u64 {
        u64::from(self.first.0) | (u64::from(self.meta) << 32)
    }
    #[inline]
    fn unpack(w: u64) -> Inc {
        Inc { first: Handle(w as u32), meta: (w >> 32) as u32 }
    }
}

/// One slot: the lock-free record beside the incoming-set header, in one
/// 16-byte cell, so that checking a member and appending to its incoming set
/// (or reading both) costs one cache miss, not two. The header is written
/// only under the shard's write lock and read under its read lock.
#[repr(C, align(16))]
pub struct Slot {
    rec: AtomicU64,
    /// `Inc::pack`ed: the inline member in the low half, then `meta`.
    inc: AtomicU64,
}

// SAFETY: two atomics; all-zero is "no atom, empty incoming set".
unsafe impl Zeroable for Slot {}

// The inline incoming member is borrowed as the low half of `Slot::inc`.
#[cfg(not(target_endian = "little"))]
compile_error!("the incoming-set header layout assumes a little-endian target");

impl Inc {
    fn len(self) -> usize {
        (self.meta & INC_LEN_MASK) as usize
    }
    fn class(self) -> u32 {
        self.meta >> 27
    }
}

/// Size-classed blocks of incoming-set members. The cells live in the
/// shard's lock-free half ([`Records`]) and never move: lock-free readers
/// copy blocks under the shard's sequence lock. This is the bookkeeping,
/// kept under the shard's lock.
#[derive(Default)]
struct Pool {
    end: usize,
    free: [Vec<u32>; 28],
}

impl Pool {
    fn alloc(&mut self, cells: &SegVec<AtomicU32>, class: u32) -> u32 {
        if let Some(off) = self.free[class as usize].pop() {
            return off;
        }
        let len = 1usize << class;
        // A block never straddles two segments, so it reads as one slice.
        let start = fit(self.end, len);
        let off = u32::try_from(start + len).map(|_| start as u32).expect("incoming pool of a shard exceeds 2^32 entries");
        cells.ensure(start + len);
        self.end = start + len;
        off
    }

    fn release(&mut self, off: u32, class: u32) {
        self.free[class as usize].push(off);
    }
}

/// The members of the pool block at `off`, `len` long, as handles. The
/// caller excludes writers (shard lock or exclusive access).
#[inline]
fn block(cells: &SegVec<AtomicU32>, off: usize, len: usize) -> &[Handle] {
    let b = cells.slice(off, len);
    // SAFETY: AtomicU32 has u32's layout and Handle is a transparent u32;
    // no writer changes the block while the caller's exclusion lasts.
    unsafe { std::slice::from_raw_parts(b.as_ptr() as *const Handle, b.len()) }
}

#[inline]
fn cell_set(cells: &SegVec<AtomicU32>, i: usize, h: Handle) {
    cells.get(i).expect("pool cell").store(h.0, Ordering::Relaxed);
}

#[inline]
fn cell_get(cells: &SegVec<AtomicU32>, i: usize) -> Handle {
    Handle(cells.get(i).expect("pool cell").load(Ordering::Relaxed))
}

/// Copies a block's first `n` members to another block (blocks never
/// straddle segments, so each reads as one slice).
fn cells_copy(cells: &SegVec<AtomicU32>, from: usize, to: usize, n: usize) {
    for (d, s) in cells.slice(to, n).iter().zip(cells.slice(from, n)) {
        d.store(s.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// One shard's incoming-set storage: slot headers, pool cells, and the
/// sequence counter that lock-free readers validate against.
#[derive(Copy, Clone)]
pub(crate) struct IncStore<'a> {
    slots: &'a SegVec<Slot>,
    cells: &'a SegVec<AtomicU32>,
    seq: &'a AtomicU64,
}

/// A writer's sections of the sequence locks of a set of shards (a bit
/// mask): their counters are odd while incoming sets there change. Ends on
/// drop, unwinding included, so readers never spin forever.
struct SeqWrite<'a> {
    seq: &'a [CachePadded<AtomicU64>; SHARDS],
    mask: u32,
}

impl<'a> SeqWrite<'a> {
    fn begin(seq: &'a [CachePadded<AtomicU64>; SHARDS], mask: u32) -> Self {
        for_each_bit(mask, |s| {
            let v = seq[s].load(Ordering::Relaxed);
            seq[s].store(v + 1, Ordering::Relaxed);
        });
        std::sync::atomic::fence(Ordering::Release);
        SeqWrite { seq, mask }
    }
}

impl Drop for SeqWrite<'_> {
    fn drop(&mut self) {
        for_each_bit(self.mask, |s| {
            let v = self.seq[s].load(Ordering::Relaxed);
            self.seq[s].store(v + 1, Ordering::Release);
        });
    }
}

#[inline]
fn for_each_bit(mut bits: u32, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// Slot blocks of one type in one shard. Slot numbers are never reused.
#[derive(Default, Clone)]
struct TypeSlots {
    blocks: Vec<u32>,
}

/// Lanes of a shard: each thread adds through one (`lane()`), taking slots
/// from its own block of the type and arena room from its own chunk, so
/// that two threads adding to a shard in turn write different lines (only
/// the lock's line passes between their cores). Two threads that shared
/// every block and arena end stalled on each other's lines at every add.
const LANES: usize = 4;

/// Arena cells a lane takes at a time.
const CHUNK: usize = 256;

/// The lane of the calling thread: threads take lanes in turn.
#[inline]
fn lane() -> usize {
    use std::cell::Cell;
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static LANE: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    LANE.with(|l| {
        if l.get() == usize::MAX {
            l.set(NEXT.fetch_add(1, Ordering::Relaxed) % LANES);
        }
        l.get()
    })
}

/// One lane's state in a shard, a cache line (or more) of its own.
#[derive(Default)]
#[repr(align(64))]
struct Lane {
    /// By type: the lane's current block.
    slots: Vec<LaneSlots>,
    names: Chunk,
    outgoing: Chunk,
}

#[derive(Default, Clone, Copy)]
struct LaneSlots {
    cursor: u32,
    end: u32,
    /// Atoms of the type added through the lane, less those removed
    /// through it (so it may be negative); a type's count is the sum.
    live: isize,
}

/// The slot blocks of the node types (or the link types) of `by_type`.
/// The blocks of both kinds' types where a type holds both: a foreign
/// AST's leaves are nodes of a link type, in its blocks.
fn blocks_of_kind(by_type: &[TypeSlots], links: bool) -> impl Iterator<Item = &u32> {
    by_type
        .iter()
        .enumerate()
        .filter(move |(t, _)| {
            let t = Type(*t as u16);
            t.is_link() == links || t.has_named_leaves()
        })
        .flat_map(|(_, ts)| &ts.blocks)
}

/// One page of truth values: the slots of one 64-slot block, each entry
/// [`tv_bits`] of a truth value in one 16-byte atomic word, so that a
/// reader or a lock-free writer never sees half of one and half of another
/// (16-byte aligned loads and stores are atomic on x86-64 CPUs with AVX,
/// and `portable_atomic` finds the cheapest way on others).
type TvPage = [AtomicU128; BLOCK as usize];

/// The truth values of a shard's atoms, by slot, in 16-byte entries on
/// pages of one slot block each, made when the block's first truth value is
/// set. Slots are handed out per type in blocks, and atoms of one type tend
/// to get truth values together, so pages fill up: 16 bytes per atom where a
/// hash map spent about 50 and rehashed as it grew. The record's `HAS_TV`
/// flag says whether an entry holds anything; a count truth value marks its
/// entry and keeps mean and count in the shard's `tv_counts`.
///
/// Pages are made under the shard's write lock and freed only when the
/// store drops (not by `clear`: like slots, entries of dead atoms are never
/// read again), so entries are read, and overwritten with simple truth
/// values, without a lock.
#[derive(Default)]
struct TvPages(SegVec<AtomicPtr<TvPage>, 4>);

impl TvPages {
    #[inline]
    fn page(&self, local: u32) -> *mut TvPage {
        self.0.get((local / BLOCK) as usize).map_or(ptr::null_mut(), |p| p.load(Ordering::Acquire))
    }

    /// The entry of `local`, if its page exists.
    #[inline]
    fn entry(&self, local: u32) -> Option<&AtomicU128> {
        let page = self.page(local);
        // SAFETY: pages live until `drop`, which `&self` outlives.
        (!page.is_null()).then(|| unsafe { &(*page)[(local % BLOCK) as usize] })
    }

    /// The entry of `local`, its page made if need be; `_locked` proves the
    /// shard's write lock is held, so no two threads make one page.
    #[inline]
    fn entry_or_new(&self, local: u32, _locked: &mut Shard) -> &AtomicU128 {
        if let Some(e) = self.entry(local) {
            return e;
        }
        self.new_page(local);
        self.entry(local).expect("page made")
    }

    #[cold]
    fn new_page(&self, local: u32) {
        let block = (local / BLOCK) as usize;
        self.0.ensure(block + 1);
        let page: Box<TvPage> = Box::new(std::array::from_fn(|_| AtomicU128::new(0)));
        self.0.get(block).expect("ensured").store(Box::into_raw(page), Ordering::Release);
    }

    fn allocated_bytes(&self) -> usize {
        let pages = (0..self.0.allocated_len()).filter(|&b| self.entry(b as u32 * BLOCK).is_some()).count();
        self.0.allocated_bytes() + pages * std::mem::size_of::<TvPage>()
    }
}

impl Drop for TvPages {
    fn drop(&mut self) {
        for b in 0..self.0.allocated_len() {
            let page = self.page(b as u32 * BLOCK);
            if !page.is_null() {
                // SAFETY: made by `Box::into_raw` in `new_page`, freed once,
                // here; `&mut self` means no one holds an entry.
                drop(unsafe { Box::from_raw(page) });
            }
        }
    }
}

/// An entry's bits: strength (or [`COUNT_MARK`]) low, confidence high.
#[inline]
fn tv_bits(a: u64, confidence: f64) -> u128 {
    a as u128 | (confidence.to_bits() as u128) << 64
}

/// The bits of a simple truth value; a NaN strength is stored as the
/// canonical NaN, so that it never reads as [`COUNT_MARK`].
#[inline]
fn simple_bits(strength: f64, confidence: f64) -> u128 {
    tv_bits(if strength.is_nan() { f64::NAN } else { strength }.to_bits(), confidence)
}

/// What removal leaves in an entry: a reader that saw the `HAS_TV` flag
/// just before it was cleared reads the default, never a half-made value.
const DEFAULT_TV_BITS: u128 = 1.0f64.to_bits() as u128;

#[inline]
fn simple_of(bits: u128) -> TruthValue {
    TruthValue::Simple { strength: f64::from_bits(bits as u64), confidence: f64::from_bits((bits >> 64) as u64) }
}

/// Drops `local`'s count, if the mark in its entry bits names one, and its
/// truth-value stream, if any. A count whose entry lost the mark to a
/// lock-free store stays until its atom goes (`tv_remove`): it is read
/// only under a mark, and a new count replaces it. A stream goes with or
/// without its mark, since one left behind would keep `has_tv_streams`
/// true for the whole space; that map is almost always empty.
#[inline]
fn forget_marked(sh: &mut Shard, local: u32, bits: u128) {
    if bits as u64 == COUNT_MARK {
        sh.tv_counts.remove(&local);
    }
    if !sh.tv_streams.is_empty() {
        sh.tv_streams.remove(&local);
    }
}

/// NaN payloads no arithmetic produces; stored strengths that are NaN are
/// stored as the canonical NaN, so these only ever mean "count" and
/// "stream" (a FormulaTruthValue, kept in the shard's `tv_streams`).
const COUNT_MARK: u64 = 0x7ff4_a70e_c0b7_0001;
const STREAM_MARK: u64 = 0x7ff4_a70e_c0b7_0002;

/// Does an entry's low word mark a truth value kept under the lock?
#[inline]
fn is_marked(bits: u128) -> bool {
    matches!(bits as u64, COUNT_MARK | STREAM_MARK)
}

/// A truth value as an entry holds it: numbers, or the stream that
/// computes them at each reading (a FormulaTruthValue).
pub(crate) enum TvEntry {
    Tv(TruthValue),
    Stream(StreamValue),
}

impl TvEntry {
    /// The numbers: a stream's reading, or the default truth value where
    /// the stream fails (its reading, asked for as a value, reports why).
    pub(crate) fn sampled(self) -> TruthValue {
        match self {
            TvEntry::Tv(tv) => tv,
            TvEntry::Stream(s) => s.sample().ok().and_then(|v| v.as_truth()).unwrap_or_default(),
        }
    }
}

/// What an atom holds besides its truth value: most atoms that have any
/// have one (an attention value, a weight), kept in the map's entry
/// itself, with no allocation of its own to make, free and miss on.
pub(crate) type KeyValues = SmallVec<[(Handle, Value); 1]>;

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

/// Access to several shards at once, as `&mut`: either the exclusive
/// `&mut Store` or a set of write guards.
pub(crate) trait ShardAccess {
    fn shard(&mut self, s: usize) -> &mut Shard;
}

/// Write locks on a set of shards, taken in increasing shard order. It keeps
/// a bit mask rather than 32 guards: making and dropping it costs only the
/// locks it holds.
pub(crate) struct LockSet<'a> {
    shards: &'a [CachePadded<ShardLock<Shard>>],
    held: u32,
}

impl LockSet<'_> {
    /// A locked shard, for reading.
    pub(crate) fn shard_ref(&self, s: usize) -> &Shard {
        assert!(self.held & (1 << s) != 0, "shard {s} not locked");
        // SAFETY: this set holds shard `s`'s write lock until it drops.
        unsafe { &*self.shards[s].data_ptr() }
    }
}

impl ShardAccess for LockSet<'_> {
    #[inline]
    fn shard(&mut self, s: usize) -> &mut Shard {
        assert!(self.held & (1 << s) != 0, "shard {s} not locked");
        // SAFETY: this set holds shard `s`'s write lock, and `&mut self`
        // hands out one mutable borrow at a time.
        unsafe { &mut *self.shards[s].data_ptr() }
    }
}

impl Drop for LockSet<'_> {
    fn drop(&mut self) {
        // SAFETY: `Store::lock` took these write locks and forgot their guards.
        for_each_bit(self.held, |s| unsafe { self.shards[s].force_unlock_write() });
    }
}

pub(crate) struct AllShards<'a>(&'a mut [CachePadded<ShardLock<Shard>>]);

impl AllShards<'_> {
    /// Shard `s`, for reading.
    #[inline]
    pub(crate) fn shard_ref(&self, s: usize) -> &Shard {
        // SAFETY: this holds the only borrow of every shard, and `&self`
        // lets no `&mut` of one out meanwhile.
        unsafe { &*self.0[s].data_ptr() }
    }
}

impl ShardAccess for AllShards<'_> {
    #[inline]
    fn shard(&mut self, s: usize) -> &mut Shard {
        self.0[s].get_mut()
    }
}

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

/// The positions of the distinct members of a list, each member's first.
/// Short lists (most links) are checked in place, a compare or two per
/// member; long ones sorted once.
enum Distinct<'a> {
    Short { out: &'a [Handle], next: usize },
    Long(std::vec::IntoIter<usize>),
}

impl<'a> Distinct<'a> {
    #[inline]
    fn of(out: &'a [Handle]) -> Self {
        if out.len() <= 16 {
            Distinct::Short { out, next: 0 }
        } else {
            Self::long(out)
        }
    }

    #[cold]
    fn long(out: &'a [Handle]) -> Self {
        let mut firsts: Vec<(Handle, usize)> = out.iter().enumerate().map(|(i, &h)| (h, i)).collect();
        firsts.sort_unstable();
        firsts.dedup_by_key(|p| p.0);
        let mut positions: Vec<usize> = firsts.into_iter().map(|(_, i)| i).collect();
        positions.sort_unstable();
        Distinct::Long(positions.into_iter())
    }
}

impl Iterator for Distinct<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Distinct::Short { out, next } => {
                while let Some(&h) = out.get(*next) {
                    let i = *next;
                    *next += 1;
                    if !out[..i].contains(&h) {
                        return Some(i);
                    }
                }
                None
            }
            Distinct::Long(positions) => positions.next(),
        }
    }
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

    /// Read-locks shard `s`. Recursive: a thread that already holds a read
    /// guard (a `Ref`, an incoming set, a `SpaceRead`) can read again even
    /// while a writer waits, instead of deadlocking behind it; the price is
    /// that a steady stream of readers can delay writers.
    #[inline]
    pub(crate) fn read(&self, s: usize) -> ReadGuard<'_, Shard> {
        self.shards[s].read_recursive()
    }

    #[inline]
    pub(crate) fn write(&self, s: usize) -> WriteGuard<'_, Shard> {
        self.shards[s].write()
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

    pub(crate) fn lock(&self, mask: ShardMask) -> LockSet<'_> {
        let mut set = LockSet { shards: &self.shards, held: 0 };
        for_each_bit(mask.0, |s| {
            // The set unlocks what it holds when it drops, also on unwinding.
            std::mem::forget(self.shards[s].write());
            set.held |= 1 << s;
        });
        set
    }

    /// The records beside exclusive access to every shard, for `&mut` callers.
    pub(crate) fn split_mut(&mut self) -> (&Records, AllShards<'_>) {
        (&self.recs, AllShards(&mut self.shards))
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
        let mut total = 0;
        for s in 0..SHARDS {
            total += self.recs.records[s].allocated_bytes() + self.recs.hashes[s].allocated_bytes();
            let sh = self.shards[s].read();
            total += self.recs.nodes_by_content[s].allocated_bytes() + self.recs.links_by_content[s].allocated_bytes();
            total += self.recs.names[s].allocated_bytes() + self.recs.outgoing[s].allocated_bytes();
            total += self.recs.pool_cells[s].allocated_bytes() + sh.pool.free.iter().map(|f| f.capacity() * 4).sum::<usize>();
            total += self.recs.tv_pages[s].allocated_bytes() + sh.tv_counts.allocation_size() + sh.tv_streams.allocation_size();
            total += sh.values.allocation_size()
                + sh.values.values().filter(|kv| kv.spilled()).map(|kv| kv.capacity() * std::mem::size_of::<(Handle, Value)>()).sum::<usize>();
            total += sh.by_type.capacity() * std::mem::size_of::<TypeSlots>() + sh.by_type.iter().map(|t| t.blocks.capacity() * 4).sum::<usize>();
            total += sh.lanes.iter().map(|l| l.slots.capacity() * std::mem::size_of::<LaneSlots>()).sum::<usize>();
        }
        total
    }
}

/// What a batch has added so far: every atom, in order, and the ones it
/// made, which are taken back if the batch fails midway.
struct Added {
    handles: Vec<Handle>,
    created: Vec<Handle>,
}

impl Added {
    fn with_capacity(n: usize) -> Self {
        Added { handles: Vec::with_capacity(n), created: Vec::new() }
    }

    /// Keeps one add's result (the atom, and whether it is new). An error
    /// (out of handles or arena space) takes back what the batch made (no
    /// link holds those: the members of a batch's links predate it), so
    /// that the batch adds nothing.
    fn keep(&mut self, recs: &Records, acc: &mut impl ShardAccess, added: Result<(Handle, bool)>) -> Result<()> {
        match added {
            Ok((h, new)) => {
                if new {
                    self.created.push(h);
                }
                self.handles.push(h);
                Ok(())
            }
            Err(e) => {
                for &h in self.created.iter().rev() {
                    let _ = recs.extract_in(acc, h);
                }
                Err(e)
            }
        }
    }
}

impl Records {
    /// The hierarchy's slot numbers, set now if this store had none.
    #[inline]
    fn slots(&self) -> &SlotSet {
        self.next_slot.get_or_init(|| Arc::new(std::array::from_fn(|_| SlotNumbers::default())))
    }

    // ----- hashing -----

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

    // ----- lock-free record access -----

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

    // ----- adding -----

    /// Adds a node; `hash` from [`Store::hash_node`]. The shard must be locked by the caller.
    /// With `defer`, the caller grows the dedupe table after unlocking when it asks to be
    /// ([`Store::grow_if_wanted`]).
    pub(crate) fn add_node_in(&self, sh: &mut Shard, hash: u64, t: Type, name: &str, defer: bool) -> Result<Handle> {
        let s = shard_of_hash(hash);
        let recs = &self.records[s];
        let view = self.view(s);
        let vacancy = match self.nodes_by_content[s].find_or_vacancy(
            &mut sh.node_book,
            short(hash),
            view.is_node(t, name),
            || self.live_of_kind(s, blocks_of_kind(&sh.by_type, false).copied(), false),
            defer,
        ) {
            Ok(l) => return Ok(Handle::new(s, l)),
            Err(v) => v,
        };
        let len = name.len();
        let too_big = || Error::InvalidValue("a shard's node names would exceed 4 GiB".into());
        let l32 = u32::try_from(len).map_err(|_| too_big())?;
        let long = len >= LEN_ESCAPE as usize;
        let l = lane();
        let local = sh.alloc_slot(l, recs, &self.hashes[s], &self.slots()[s], t)?;
        let off = if long {
            let mut bytes = l32.to_le_bytes().to_vec();
            bytes.extend_from_slice(name.as_bytes());
            self.names[s].push_in(&mut sh.lanes[l].names, &mut sh.names_end, CHUNK, &bytes)
        } else {
            self.names[s].push_in(&mut sh.lanes[l].names, &mut sh.names_end, CHUNK, name.as_bytes())
        };
        let Some(off) = off else {
            sh.free_slot(l, t, local);
            return Err(too_big());
        };
        let len_field = if long { LEN_ESCAPE } else { l32 };
        let word = LIVE | (u64::from(t.0) << TYPE_SHIFT) | (u64::from(len_field) << LEN_SHIFT) | u64::from(off);
        self.publish(&self.nodes_by_content[s], &mut sh.node_book, vacancy, s, local, word, hash);
        sh.nodes += 1;
        Ok(Handle::new(s, local))
    }

    /// Adds a link whose outgoing set is already canonical, and says whether
    /// it is new. The caller holds the home shard (from `hash`) and the shards
    /// of every target. Members must be atoms of this store, or be listed in
    /// `foreign`: atoms of base spaces that the caller has found live and
    /// whose owners' incoming sets it updates itself. `defer` as for `add_node_in`.
    pub(crate) fn add_link_in(
        &self,
        acc: &mut impl ShardAccess,
        hash: u64,
        t: Type,
        out: &[Handle],
        foreign: &[Handle],
        defer: bool,
    ) -> Result<(Handle, bool)> {
        for &x in out {
            // A foreign member may have been hidden here since the caller looked.
            if self.rec(x).is_none() && (!foreign.contains(&x) || self.is_hidden(x)) {
                return Err(Error::InvalidHandle(x));
            }
        }
        // From before the link can be seen until it is in its members'
        // incoming sets, lock-free readers of those sets wait.
        // Checked above: a member is this store's unless foreign.
        let _sections = self.seq_sections(out, |x| !foreign.contains(&x));
        self.insert_link(acc, hash, t, out, |_, x| (!foreign.contains(&x)).then(|| self.slot(x)), defer)
    }

    /// The slot of `h`, an atom of this store.
    #[inline]
    fn slot(&self, h: Handle) -> &Slot {
        self.records[h.shard()].get(h.local() as usize).expect("slot of a live atom")
    }

    /// `add_link_in` once its members are checked and the sequence
    /// sections of their shards are open. `member(i, out[i])` is the slot
    /// whose incoming set takes the link, `None` for a foreign member.
    #[inline(always)]
    fn insert_link<'r>(
        &'r self,
        acc: &mut impl ShardAccess,
        hash: u64,
        t: Type,
        out: &[Handle],
        member: impl Fn(usize, Handle) -> Option<&'r Slot>,
        defer: bool,
    ) -> Result<(Handle, bool)> {
        let s = shard_of_hash(hash);
        let recs = &self.records[s];
        let sh = acc.shard(s);
        let view = self.view(s);
        let vacancy = match self.links_by_content[s].find_or_vacancy(
            &mut sh.link_book,
            short(hash),
            view.is_link(t, out),
            || self.live_of_kind(s, blocks_of_kind(&sh.by_type, true).copied(), true),
            defer,
        ) {
            Ok(l) => return Ok((Handle::new(s, l), false)),
            Err(v) => v,
        };
        let l = lane();
        let local = sh.alloc_slot(l, recs, &self.hashes[s], &self.slots()[s], t)?;
        let long = out.len() >= LEN_ESCAPE as usize;
        let off = if long {
            let mut members = vec![Handle(out.len() as u32)];
            members.extend_from_slice(out);
            self.outgoing[s].push_in(&mut sh.lanes[l].outgoing, &mut sh.outgoing_end, CHUNK, &members)
        } else {
            self.outgoing[s].push_in(&mut sh.lanes[l].outgoing, &mut sh.outgoing_end, CHUNK, out)
        };
        let Some(off) = off else {
            sh.free_slot(l, t, local);
            return Err(Error::InvalidValue("a shard's outgoing sets would exceed 2^32 members".into()));
        };
        let len_field = if long { LEN_ESCAPE } else { out.len() as u32 };
        let word = LIVE | IS_LINK | (u64::from(t.0) << TYPE_SHIFT) | (u64::from(len_field) << LEN_SHIFT) | u64::from(off);
        self.publish(&self.links_by_content[s], &mut sh.link_book, vacancy, s, local, word, hash);
        sh.links += 1;
        let h = Handle::new(s, local);
        for i in Distinct::of(out) {
            let x = out[i];
            if let Some(slot) = member(i, x) {
                acc.shard(x.shard()).inc_push(slot, &self.pool_cells[x.shard()], h);
            }
        }
        Ok((h, true))
    }

    /// Shard `s`'s link (or node) dedupe table.
    fn dedupe(&self, s: usize, links: bool) -> &Dedupe {
        if links {
            &self.links_by_content[s]
        } else {
            &self.nodes_by_content[s]
        }
    }

    /// The live links (or nodes) of shard `s` in `blocks` (from
    /// `blocks_of_kind`), with their stored hashes, in slot order: what the
    /// shard's link (or node) dedupe table holds, for growing it.
    fn live_of_kind<'a>(&'a self, s: usize, blocks: impl Iterator<Item = u32> + 'a, links: bool) -> impl Iterator<Item = (u32, u32)> + 'a {
        let view = self.view(s);
        self.live_in(s, blocks).filter(move |&(l, _)| view.rec(l).is_link() == links)
    }

    /// The live atoms of the slot blocks `blocks` of shard `s`, with their
    /// stored hashes, in slot order. Lock-free: a record is read before its
    /// hash, which `publish` writes first.
    fn live_in<'a>(&'a self, s: usize, blocks: impl Iterator<Item = u32> + 'a) -> impl Iterator<Item = (u32, u32)> + 'a {
        let (recs, hashes) = (&self.records[s], &self.hashes[s]);
        blocks.flat_map(move |b| {
            // A block lies in one segment: slot numbers and segment sizes are multiples of it.
            let (slots, block_hashes) = (recs.slice(b as usize, BLOCK as usize), hashes.slice(b as usize, BLOCK as usize));
            (b..)
                .zip(slots.iter().zip(block_hashes))
                .filter(|(_, (slot, _))| Rec(slot.rec.load(Ordering::Acquire)).live())
                .map(|(l, (_, hash))| (l, hash.load(Ordering::Relaxed)))
        })
    }

    /// Makes slot `local` of shard `s` hold the atom `word` describes, with
    /// its content `hash` kept beside it and entered in `table` at `vacancy`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn publish(&self, table: &Dedupe, book: &mut DedupeBook, vacancy: Vacancy, s: usize, local: u32, word: u64, hash: u64) {
        // The hash first: a growth reading records without the lock takes
        // the hash of any record it finds live.
        self.hashes[s].get(local as usize).expect("allocated slot").store(short(hash), Ordering::Relaxed);
        self.records[s].get(local as usize).expect("allocated slot").rec.store(word, Ordering::Release);
        table.fill(book, vacancy, short(hash), local);
    }

    /// Puts a batch in canonical form (see `link_key`; `c` reads the
    /// members' contents) with each link's content hash, checking every
    /// type before anything is added. A batch
    /// already canonical (no unordered link out of order) is used as it is;
    /// with `trust_order` (a table, given the loader's batch) it is taken
    /// to be, unchecked.
    pub(crate) fn prepare_links<'b>(
        &self,
        batch: &'b LinkBatch,
        c: &impl crate::sexpr::AtomSource,
        trust_order: bool,
    ) -> Result<(std::borrow::Cow<'b, LinkBatch>, Vec<u64>)> {
        let mut hashes = Vec::with_capacity(batch.len());
        let mut reordered = false;
        for (t, out) in batch.iter() {
            if !t.is_link() {
                return Err(Error::NotALinkType(t));
            }
            reordered |= t.is_unordered() && !trust_order && !crate::order::is_sorted(c, out);
            hashes.push(self.hash_link(t, out));
        }
        if !reordered {
            return Ok((std::borrow::Cow::Borrowed(batch), hashes));
        }
        let mut canon = LinkBatch::with_capacity(batch.len(), batch.members().len());
        hashes.clear();
        for (t, out) in batch.iter() {
            let key = crate::table::link_key(t, out, c)?;
            hashes.push(self.hash_link(t, &key));
            canon.push(t, &key);
        }
        Ok((std::borrow::Cow::Owned(canon), hashes))
    }

    /// Adds a prepared batch in order, as `add_link_in` would one by one,
    /// but looking ahead: the links `AHEAD` places on have their dedupe
    /// probe and members' slots fetched, those `AHEAD / 2` on their
    /// members' incoming blocks and their dedupe candidate's record, and
    /// those `AHEAD / 4` on the candidate's members, so the misses of
    /// several links overlap; `GROUP` links at a time, because a prefetch
    /// whose page walk misses holds up retirement, and only prefetches
    /// issued close together walk at once. Every member is checked live
    /// first, so a bad handle adds nothing. Each link has sequence sections of its own, as
    /// in `add_link_in`: lock-free incoming readers get through between
    /// links, where a section over many links would send them to the locks
    /// the batch holds until it ends. The caller holds every shard the
    /// batch touches.
    pub(crate) fn add_links_in(&self, acc: &mut impl ShardAccess, batch: &LinkBatch, hashes: &[u64]) -> Result<Vec<Handle>> {
        const AHEAD: usize = 32;
        const GROUP: usize = 8;
        // A candidate's record is fetched (at AHEAD / 2) a group before its
        // members are (at AHEAD / 4), and they a group before they are read.
        const _: () = assert!(AHEAD / 2 - AHEAD / 4 >= GROUP && AHEAD / 4 >= GROUP);
        // The check walks members whose slots are mostly not in cache, a few
        // instructions each: it fetches far ahead so that their misses
        // overlap instead of queueing (paired runs: about 6% of a
        // 1M-structure atom-bench insert).
        const CHECK_AHEAD: usize = 128;
        // Each member's slot, found here once for the look-ahead and the
        // incoming-set appends that follow.
        let members = batch.members();
        let mut slots: Vec<&Slot> = Vec::with_capacity(members.len());
        for (i, &x) in members.iter().enumerate() {
            if let Some(&y) = members.get(i + CHECK_AHEAD) {
                self.prefetch_slot(y);
            }
            let Some((slot, _)) = self.live_slot(x) else { return Err(Error::InvalidHandle(x)) };
            slots.push(slot);
        }
        let n = batch.len();
        let prefetch = |i: usize| {
            self.links_by_content[shard_of_hash(hashes[i])].prefetch(short(hashes[i]));
            slots[batch.range(i)].iter().take(8).for_each(|&slot| crate::prefetch(slot as *const Slot));
        };
        for i in 0..n.min(AHEAD) {
            prefetch(i);
        }
        let mut added = Added::with_capacity(n);
        for i in 0..n {
            if i % GROUP == 0 {
                for j in (i + AHEAD..i + AHEAD + GROUP).take_while(|&j| j < n) {
                    prefetch(j);
                }
                for j in (i + AHEAD / 2..i + AHEAD / 2 + GROUP).take_while(|&j| j < n) {
                    self.prefetch_link_late(hashes[j], batch.outgoing(j), &slots[batch.range(j)]);
                }
                // The candidate's record came with the late look-ahead, a group before.
                for j in (i + AHEAD / 4..i + AHEAD / 4 + GROUP).take_while(|&j| j < n) {
                    self.prefetch_candidate_contents(&self.links_by_content, hashes[j]);
                }
            }
            let (out, out_slots) = (batch.outgoing(i), &slots[batch.range(i)]);
            let sections = self.seq_sections(out, |_| true);
            let added_one = self.insert_link(acc, hashes[i], batch.types()[i], out, |j, _| Some(out_slots[j]), false);
            drop(sections);
            added.keep(self, acc, added_one)?;
        }
        Ok(added.handles)
    }

    /// Adds a batch of nodes in order, as `add_node_in` would one by one,
    /// looking ahead as `add_links_in` does: the nodes `AHEAD` places on
    /// have their dedupe probe fetched, those `AHEAD / 2` on the record of
    /// their dedupe candidate, and those `AHEAD / 4` on its name, so that
    /// a lookup's three dependent misses overlap with other nodes'. With an
    /// error midway, the nodes the batch made are taken back. The caller
    /// holds every shard.
    pub(crate) fn add_nodes_in(&self, acc: &mut impl ShardAccess, batch: &NodeBatch) -> Result<Vec<Handle>> {
        for &t in batch.types() {
            crate::table::node_type(t)?;
        }
        let hashes: Vec<u64> = batch.iter().map(|(t, name)| self.hash_node(t, name)).collect();
        let n = batch.len();
        self.nodes_ahead(&hashes, None);
        let mut added = Added::with_capacity(n);
        for (i, (t, node_name)) in batch.iter().enumerate() {
            self.nodes_ahead(&hashes, Some(i));
            let s = shard_of_hash(hashes[i]);
            let before = acc.shard(s).nodes;
            let added_one = self.add_node_in(acc.shard(s), hashes[i], t, node_name, false);
            let new = acc.shard(s).nodes != before;
            added.keep(self, acc, added_one.map(|h| (h, new)))?;
        }
        Ok(added.handles)
    }

    /// Each node of `batch` this store holds, found without a lock (another
    /// thread may be adding meanwhile: a node added meanwhile may or may
    /// not be found), or `None`; looking ahead as `add_nodes_in` does.
    pub(crate) fn find_nodes(&self, batch: &NodeBatch, found: &mut Vec<Option<Handle>>) {
        let hashes: Vec<u64> = batch.iter().map(|(t, name)| self.hash_node(t, name)).collect();
        self.nodes_ahead(&hashes, None);
        found.clear();
        found.extend(batch.iter().enumerate().map(|(i, (t, name))| {
            self.nodes_ahead(&hashes, Some(i));
            self.find_node(hashes[i], t, name)
        }));
    }

    /// The look-ahead of a walk over nodes with these content hashes, before
    /// the walk (`None`) and as it reaches node `i`: the dedupe probes of
    /// the nodes `AHEAD` places on are fetched, the records of the
    /// candidates `AHEAD / 2` on, and the names of those `AHEAD / 4` on.
    #[inline]
    fn nodes_ahead(&self, hashes: &[u64], i: Option<usize>) {
        const AHEAD: usize = 32;
        let probe = |j: usize| self.nodes_by_content[shard_of_hash(hashes[j])].prefetch(short(hashes[j]));
        let Some(i) = i else {
            (0..hashes.len().min(AHEAD)).for_each(probe);
            return;
        };
        if i + AHEAD < hashes.len() {
            probe(i + AHEAD);
        }
        if let Some(&h) = hashes.get(i + AHEAD / 2) {
            let s = shard_of_hash(h);
            self.nodes_by_content[s].prefetch_candidate_in_line(short(h), |l| self.records[s].prefetch(l as usize));
        }
        if let Some(&h) = hashes.get(i + AHEAD / 4) {
            let s = shard_of_hash(h);
            self.nodes_by_content[s].prefetch_candidate_in_line(short(h), |l| self.prefetch_contents(Handle::new(s, l)));
        }
    }

    /// Starts fetching the name or members of the dedupe candidate for
    /// `hash` in `table` (`nodes_by_content` or `links_by_content`), which
    /// the atom being added is compared with; the candidate's record should
    /// be in cache.
    #[inline]
    fn prefetch_candidate_contents(&self, table: &[Dedupe; SHARDS], hash: u64) {
        let s = shard_of_hash(hash);
        table[s].prefetch_candidate(short(hash), |l| self.prefetch_contents(Handle::new(s, l)));
    }

    /// The second look ahead of `add_links_in`, once the first has brought
    /// the slots and probe entry in: the incoming-set blocks the
    /// link will append to, and the record of a dedupe candidate.
    #[inline]
    fn prefetch_link_late(&self, hash: u64, out: &[Handle], slots: &[&Slot]) {
        let s = shard_of_hash(hash);
        self.links_by_content[s].prefetch_candidate(short(hash), |slot| self.records[s].prefetch(slot as usize));
        for (&x, slot) in out.iter().zip(slots).take(8) {
            self.prefetch_append(x, slot);
        }
    }

    /// Starts fetching the end of `x`'s incoming block, whose slot is
    /// `slot`: the last member (copied if the block grows) and the cell a
    /// new link is appended to.
    #[inline]
    fn prefetch_append(&self, x: Handle, slot: &Slot) {
        let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
        if inc.class() > 0 {
            let end = inc.first.0 as usize + inc.len();
            self.pool_cells[x.shard()].prefetch(end - 1);
            self.pool_cells[x.shard()].prefetch(end);
        }
    }

    /// Starts fetching what adding this link reads first: the members' slots
    /// and the dedupe probe. Called before taking the shard locks: prefetches
    /// are not held back by the locks' fences, so these misses overlap them.
    #[inline]
    pub(crate) fn prefetch_link(&self, hash: u64, out: &[Handle]) {
        self.links_by_content[shard_of_hash(hash)].prefetch(short(hash));
        for &x in out.iter().take(8) {
            self.records[x.shard()].prefetch(x.local() as usize);
        }
    }

    /// Starts fetching where a new link appends to its members' incoming
    /// sets; their slots should be in cache (from [`Records::prefetch_link`]).
    #[inline]
    pub(crate) fn prefetch_incoming(&self, out: &[Handle]) {
        for &x in out.iter().take(8) {
            if let Some(slot) = self.records[x.shard()].get(x.local() as usize) {
                self.prefetch_append(x, slot);
            }
        }
    }

    /// Starts fetching what setting `h`'s truth value or values reads
    /// first: its slot and its truth-value entry.
    #[inline]
    pub(crate) fn prefetch_values(&self, h: Handle) {
        self.prefetch_slot(h);
        if let Some(entry) = self.tv_pages[h.shard()].entry(h.local()) {
            crate::prefetch(entry as *const AtomicU128);
        }
    }

    /// Starts fetching `h`'s slot; see [`Records::prefetch_link`].
    #[inline]
    pub(crate) fn prefetch_slot(&self, h: Handle) {
        self.records[h.shard()].prefetch(h.local() as usize);
    }

    /// Starts fetching link `h`'s outgoing set; its record should be in
    /// cache already (from [`Records::prefetch_slot`]), or this waits for it.
    #[inline]
    pub(crate) fn prefetch_outgoing(&self, h: Handle) {
        if let Some(rec) = self.rec(h) {
            if rec.is_link() {
                self.outgoing[h.shard()].prefetch(rec.payload() as usize);
            }
        }
    }

    /// Starts fetching what atom `h` is made of: a link's outgoing set, a
    /// node's name. Its record should be in cache, as for
    /// [`Records::prefetch_outgoing`].
    #[inline]
    pub(crate) fn prefetch_contents(&self, h: Handle) {
        if let Some(rec) = self.rec(h) {
            let (s, at) = (h.shard(), rec.payload() as usize);
            if rec.is_link() {
                self.outgoing[s].prefetch(at);
            } else {
                self.names[s].prefetch(at);
            }
        }
    }

    /// Registers link `l` in the incoming set of `x`, an atom of this store
    /// (for links of child spaces). The caller holds `x`'s shard.
    pub(crate) fn inc_push_in(&self, sh: &mut Shard, x: Handle, l: Handle) {
        let _seq = SeqWrite::begin(&self.inc_seq, 1 << x.shard());
        sh.inc_push(self.slot(x), &self.pool_cells[x.shard()], l);
    }

    /// Unregisters link `l` from the incoming set of `x`. The caller holds `x`'s shard.
    pub(crate) fn inc_remove_in(&self, sh: &mut Shard, x: Handle, l: Handle) {
        let _seq = SeqWrite::begin(&self.inc_seq, 1 << x.shard());
        sh.inc_remove(self.inc_store(x.shard()), x.local(), l);
    }

    /// Opens sequence sections on the shards of the `members` held here
    /// (`own`; each shard once), so lock-free readers of their incoming sets
    /// retry until a link's record and its incoming entries agree.
    fn seq_sections(&self, members: &[Handle], own: impl Fn(Handle) -> bool) -> SeqWrite<'_> {
        let mut mask = 0u32;
        for &x in members {
            let s = x.shard();
            if mask & (1 << s) == 0 && own(x) {
                mask |= 1 << s;
            }
        }
        SeqWrite::begin(&self.inc_seq, mask)
    }

    /// The node of this content, found without a lock.
    #[inline]
    pub(crate) fn find_node(&self, hash: u64, t: Type, name: &str) -> Option<Handle> {
        let s = shard_of_hash(hash);
        let view = self.view(s);
        self.nodes_by_content[s].find(short(hash), view.is_node(t, name)).map(|l| Handle::new(s, l))
    }

    /// The link of this content, found without a lock.
    #[inline]
    pub(crate) fn find_link(&self, hash: u64, t: Type, out: &[Handle]) -> Option<Handle> {
        let s = shard_of_hash(hash);
        let view = self.view(s);
        self.links_by_content[s].find(short(hash), view.is_link(t, out)).map(|l| Handle::new(s, l))
    }

    pub(crate) fn home_of_hash(hash: u64) -> usize {
        shard_of_hash(hash)
    }

    // ----- extracting -----

    /// Extracts an atom that has no incoming links, and gives back its
    /// values, for the caller to drop once it has let go of the locks (see
    /// `set_value_in`). The caller holds the atom's shard and the shards of
    /// its outgoing set.
    pub(crate) fn extract_in(&self, acc: &mut impl ShardAccess, h: Handle) -> Result<KeyValues> {
        let rec = self.rec(h).ok_or(Error::InvalidHandle(h))?;
        let s = h.shard();
        let recs = &self.records[s];
        let sh = acc.shard(s);
        let incoming = sh.incoming(self.inc_store(s), h.local()).len();
        if incoming > 0 {
            return Err(Error::HasIncoming { atom: h, incoming });
        }
        let view = self.view(s);
        let local = h.local();
        let hash = view.hash(local);
        // From before the link stops being visible until it has left its
        // members' incoming sets, lock-free readers of those sets wait.
        let sections = self.seq_sections(if rec.is_link() { view.out(rec) } else { &[] }, |x| self.rec(x).is_some());
        if rec.is_link() {
            self.links_by_content[s].remove(&mut sh.link_book, hash, local);
        } else {
            self.nodes_by_content[s].remove(&mut sh.node_book, hash, local);
        }
        if rec.has_tv() {
            self.tv_remove(sh, s, local);
        }
        let values = if rec.has_values() { sh.values.remove(&local).unwrap_or_default() } else { KeyValues::new() };
        sh.lane_slots(lane(), rec.ty()).live -= 1;
        let slot = recs.get(h.local() as usize).expect("slot of a live atom");
        slot.rec.store(0, Ordering::Release);
        if rec.is_link() {
            sh.links -= 1;
            let out = view.out(rec);
            // Members of base spaces: the caller unregisters the link from their owners.
            for x in Distinct::of(out).map(|i| out[i]) {
                if self.rec(x).is_some() {
                    acc.shard(x.shard()).inc_remove(self.inc_store(x.shard()), x.local(), h);
                }
            }
        } else {
            sh.nodes -= 1;
        }
        drop(sections);
        Ok(values)
    }

    // ----- values -----
    //
    // `foreign` marks a base atom seen from a child space: its slot here holds
    // no atom, only the values the child set on it.

    /// The word values are flagged in: the atom's own record, or a base
    /// atom's slot here. The caller holds the shard's write lock.
    #[inline]
    fn value_word(&self, sh: &mut Shard, h: Handle, foreign: bool) -> Result<&AtomicU64> {
        let recs = &self.records[h.shard()];
        if foreign {
            recs.ensure(h.local() as usize + 1);
            let w = &recs.get(h.local() as usize).expect("ensured").rec;
            match w.load(Ordering::Acquire) {
                0 => sh.overlay.push(h.local()),
                HIDDEN => return Err(Error::InvalidHandle(h)),
                word if Rec(word).live() => return Err(Error::InvalidHandle(h)),
                _ => {}
            }
            Ok(w)
        } else {
            match recs.get(h.local() as usize) {
                Some(w) if Rec(w.rec.load(Ordering::Acquire)).live() => Ok(&w.rec),
                _ => Err(Error::InvalidHandle(h)),
            }
        }
    }

    /// The flags of `h`'s slot here, whether it holds `h` or overlays it.
    #[inline]
    fn slot_flags(&self, h: Handle) -> u64 {
        self.records[h.shard()].get(h.local() as usize).map_or(0, |w| w.rec.load(Ordering::Acquire))
    }

    /// Replaces `h`'s simple truth value with the simple `tv`, without the
    /// shard's lock: one 16-byte store. Only where `h` is live and has a
    /// simple truth value already (its page exists and the `HAS_TV` flag,
    /// which changes only under the lock, is set) and `tv` is not the
    /// default (which resets the entry). Else returns false, and the caller
    /// takes the locked path (so do base atoms overlaid in a child store:
    /// their slot here holds flags, not a live record); by then the record
    /// and the entry are on their way to cache.
    ///
    /// Locked writers that read the entry to compute a new one (counts)
    /// write it back with a compare-exchange, so a store here is never lost
    /// between their read and their write. A count set blindly under the
    /// lock between this check and the store is overwritten: the later
    /// writer wins.
    #[inline]
    pub(crate) fn set_tv_lock_free(&self, h: Handle, tv: TruthValue) -> bool {
        let (s, local) = (h.shard(), h.local());
        let Some(slot) = self.records[s].get(local as usize) else { return false };
        let Some(entry) = self.tv_pages[s].entry(local) else {
            crate::prefetch(slot);
            return false;
        };
        // Both loads are issued before either is waited for.
        let (rec, bits) = (Rec(slot.rec.load(Ordering::Acquire)), entry.load(Ordering::Relaxed));
        let TruthValue::Simple { strength, confidence } = tv else { return false };
        if !rec.live() || !rec.has_tv() || is_marked(bits) || tv.is_default() {
            return false;
        }
        entry.store(simple_bits(strength, confidence), Ordering::Release);
        true
    }

    /// `h`'s truth value read without a lock, where its entry holds a
    /// simple one: `None` for a count truth value or a stream (kept under
    /// the lock) or no entry. The caller saw the `HAS_TV` flag.
    #[inline]
    pub(crate) fn simple_tv(&self, h: Handle) -> Option<TruthValue> {
        let bits = self.tv_pages[h.shard()].entry(h.local())?.load(Ordering::Acquire);
        (!is_marked(bits)).then(|| simple_of(bits))
    }

    /// The truth value an entry's bits hold; a count's count, or a stream,
    /// from under the lock.
    fn decode_tv(sh: &Shard, local: u32, bits: u128) -> TvEntry {
        match bits as u64 {
            COUNT_MARK => {
                let &[mean, count] = sh.tv_counts.get(&local).expect("a marked count truth value has its count");
                TvEntry::Tv(TruthValue::Count { mean, confidence: f64::from_bits((bits >> 64) as u64), count })
            }
            STREAM_MARK => TvEntry::Stream(sh.tv_streams.get(&local).expect("a marked stream truth value has its stream").clone()),
            _ => TvEntry::Tv(simple_of(bits)),
        }
    }

    /// Adds `n` to `h`'s count and returns the new truth value; `base` gives
    /// an overlaid base atom's value where this store has none. The caller
    /// holds the write lock, but a lock-free replacement may still land
    /// between reading the entry and writing it back: the write is a
    /// compare-exchange, and a lost race reads again.
    pub(crate) fn increment_count_in(&self, sh: &mut Shard, h: Handle, n: f64, foreign: bool, base: impl Fn() -> TruthValue) -> Result<TruthValue> {
        let (s, local) = (h.shard(), h.local());
        loop {
            let flags = self.slot_flags(h);
            let seen = if flags & HAS_TV != 0 { self.tv_pages[s].entry(local).map(|e| (e, e.load(Ordering::Acquire))) } else { None };
            let current = match seen {
                Some((_, bits)) => match Self::decode_tv(sh, local, bits) {
                    TvEntry::Tv(tv) => tv,
                    TvEntry::Stream(_) => {
                        return Err(Error::InvalidValue("the truth value is a FormulaTruthValue, computed: it has no count to add to".into()))
                    }
                },
                None if foreign => base(),
                None if Rec(flags).live() => TruthValue::DEFAULT,
                None => return Err(Error::InvalidHandle(h)),
            };
            let tv = incremented(current, n);
            let TruthValue::Count { mean, confidence, count } = tv else { unreachable!("incremented makes counts") };
            let Some((entry, bits)) = seen else {
                // No entry in use: lock-free writers leave it alone.
                self.set_tv_in(sh, h, tv, foreign)?;
                return Ok(tv);
            };
            sh.tv_counts.insert(local, [mean, count]);
            if entry.compare_exchange(bits, tv_bits(COUNT_MARK, confidence), Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                return Ok(tv);
            }
        }
    }

    #[inline]
    pub(crate) fn set_tv_in(&self, sh: &mut Shard, h: Handle, tv: TruthValue, foreign: bool) -> Result<()> {
        let word = self.value_word(sh, h, foreign)?;
        let flags = word.load(Ordering::Acquire);
        let (s, local) = (h.shard(), h.local());
        if tv.is_default() && !foreign {
            if flags & HAS_TV != 0 {
                set_flags(word, 0, HAS_TV);
                self.tv_remove(sh, s, local);
            }
            return Ok(());
        }
        // A child keeps even the default truth value: it hides the base's.
        let entry = self.tv_pages[s].entry_or_new(local, sh);
        // Only a marked entry has a count to forget, and only with the flag
        // (every path that clears it forgets it): a load's truth values,
        // set again at each mention, skip the count map, a cache miss each.
        let old = if flags & HAS_TV != 0 { entry.load(Ordering::Relaxed) } else { 0 };
        forget_marked(sh, local, old);
        match tv {
            TruthValue::Simple { strength, confidence } => {
                entry.store(simple_bits(strength, confidence), Ordering::Release);
            }
            TruthValue::Count { mean, confidence, count } => {
                sh.tv_counts.insert(local, [mean, count]);
                entry.store(tv_bits(COUNT_MARK, confidence), Ordering::Release);
            }
        }
        if flags & HAS_TV == 0 {
            set_flags(word, HAS_TV, 0);
        }
        Ok(())
    }

    /// Makes a FormulaTruthValue `h`'s truth value: read, it is run.
    pub(crate) fn set_tv_stream_in(&self, sh: &mut Shard, h: Handle, stream: StreamValue, foreign: bool) -> Result<()> {
        let word = self.value_word(sh, h, foreign)?;
        let local = h.local();
        let entry = self.tv_pages[h.shard()].entry_or_new(local, sh);
        forget_marked(sh, local, entry.load(Ordering::Relaxed));
        sh.tv_streams.insert(local, stream);
        entry.store(tv_bits(STREAM_MARK, 0.0), Ordering::Release);
        set_flags(word, HAS_TV, 0);
        Ok(())
    }

    /// Drops the truth value of `local` in shard `s`, if it has one.
    fn tv_remove(&self, sh: &mut Shard, s: usize, local: u32) {
        if let Some(entry) = self.tv_pages[s].entry(local) {
            entry.store(DEFAULT_TV_BITS, Ordering::Release);
        }
        // Also a count or stream whose mark a lock-free store overwrote.
        if !sh.tv_counts.is_empty() {
            sh.tv_counts.remove(&local);
        }
        if !sh.tv_streams.is_empty() {
            sh.tv_streams.remove(&local);
        }
    }

    /// The truth value: `Some` for an atom of this store (the default when
    /// none is set) or for an overlaid base atom that has one here.
    pub(crate) fn get_tv_in(&self, sh: &Shard, h: Handle) -> Option<TvEntry> {
        let flags = self.slot_flags(h);
        if flags & HAS_TV == 0 {
            return Rec(flags).live().then_some(TvEntry::Tv(TruthValue::DEFAULT));
        }
        // One load: a lock-free store may replace the entry at any time.
        let bits = self.tv_pages[h.shard()].entry(h.local())?.load(Ordering::Acquire);
        Some(Self::decode_tv(sh, h.local(), bits))
    }

    /// Sets (`Some`) or removes (`None`) the value under `key`, and gives
    /// back the value it replaced or removed, for the caller to drop once
    /// it has let go of the shard (dropping a value can free a whole
    /// AtomSpace) or elsewhere (the loader drops them on its reading thread).
    #[must_use = "the replaced value is to be dropped outside the shard's lock"]
    pub(crate) fn set_value_in(&self, sh: &mut Shard, h: Handle, key: Handle, v: Option<Value>, foreign: bool) -> Result<Option<Value>> {
        let word = self.value_word(sh, h, foreign)?;
        let local = h.local();
        let old = match v {
            Some(v) => {
                let kv = sh.values.entry(local).or_default();
                let old = match kv.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => Some(std::mem::replace(&mut slot.1, v)),
                    None => {
                        kv.push((key, v));
                        None
                    }
                };
                set_flags(word, HAS_VALUES, 0);
                old
            }
            None if word.load(Ordering::Acquire) & HAS_VALUES != 0 => {
                let kv = sh.values.entry(local).or_default();
                let old = kv.iter().position(|(k, _)| *k == key).map(|at| kv.remove(at).1);
                if kv.is_empty() {
                    sh.values.remove(&local);
                    set_flags(word, 0, HAS_VALUES);
                }
                old
            }
            None => None,
        };
        Ok(old)
    }

    /// The value under `key` kept here (for an atom of this store, or overlaid on a base atom).
    pub(crate) fn get_value_in(&self, sh: &Shard, h: Handle, key: Handle) -> Option<Value> {
        self.key_values_in(sh, h).iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    }

    /// The values kept here for `h`, truth value excluded.
    pub(crate) fn key_values_in<'s>(&self, sh: &'s Shard, h: Handle) -> &'s [(Handle, Value)] {
        if self.slot_flags(h) & HAS_VALUES == 0 {
            return &[];
        }
        sh.values.get(&h.local()).map_or(&[], SmallVec::as_slice)
    }

    // ----- child spaces -----

    /// Does this store keep anything of `h`: its record, or a truth value
    /// or values a child set on a base atom?
    pub(crate) fn keeps(&self, h: Handle) -> bool {
        self.slot_flags(h) & (LIVE | HAS_TV | HAS_VALUES) != 0
    }

    /// Has this (child) store hidden the base atom `h`?
    #[inline]
    pub(crate) fn is_hidden(&self, h: Handle) -> bool {
        self.slot_flags(h) == HIDDEN
    }

    /// Hides the base atom `h` in this child store, and gives back the
    /// values the child set on it, for the caller to drop once it has let
    /// go of the lock. The caller holds `h`'s shard.
    pub(crate) fn hide_in(&self, sh: &mut Shard, h: Handle) -> KeyValues {
        let recs = &self.records[h.shard()];
        recs.ensure(h.local() as usize + 1);
        let w = &recs.get(h.local() as usize).expect("ensured").rec;
        debug_assert!(!Rec(w.load(Ordering::Acquire)).live());
        if w.load(Ordering::Acquire) == 0 {
            sh.overlay.push(h.local());
        }
        self.tv_remove(sh, h.shard(), h.local());
        let values = sh.values.remove(&h.local()).unwrap_or_default();
        w.store(HIDDEN, Ordering::Release);
        values
    }

    /// Makes a hidden base atom visible again. The caller holds `h`'s shard.
    pub(crate) fn unhide_in(&self, _sh: &mut Shard, h: Handle) {
        if let Some(w) = self.records[h.shard()].get(h.local() as usize) {
            let _ = w.rec.compare_exchange(HIDDEN, 0, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    /// Links of this store that contain `h` (an atom of this store or a base atom).
    pub(crate) fn own_incoming_in<'s>(&self, sh: &'s Shard, h: Handle) -> &'s [Handle] {
        sh.incoming(self.inc_store_for(sh, h.shard()), h.local())
    }

    /// Empties shard `s` (held by the caller), and gives back its values,
    /// for the caller to drop once it has let go of the locks (see
    /// `set_value_in`). Slot numbers keep counting up so old handles stay
    /// dead.
    pub(crate) fn clear_shard(&self, sh: &mut Shard, s: usize) -> HashMap<u32, KeyValues, FixedState> {
        // Most shards of a small space are empty: resetting them would
        // reallocate their tables for nothing.
        if sh.is_empty() {
            return HashMap::default();
        }
        let _seq = SeqWrite::begin(&self.inc_seq, 1 << s);
        // Only the slots this store used: a child's slot range is sparse,
        // and touching all of it would make it resident.
        let recs = &self.records[s];
        let blocks = sh.by_type.iter().flat_map(|ts| ts.blocks.iter().flat_map(|&b| b..b + BLOCK));
        for l in blocks.chain(sh.overlay.iter().copied()) {
            if let Some(w) = recs.get(l as usize) {
                w.rec.store(0, Ordering::Release);
                w.inc.store(0, Ordering::Relaxed);
            }
        }
        self.nodes_by_content[s].clear(&mut sh.node_book);
        self.links_by_content[s].clear(&mut sh.link_book);
        let values = std::mem::take(&mut sh.values);
        *sh = Shard { names_end: sh.names_end, outgoing_end: sh.outgoing_end, ..Shard::default() };
        values
    }

    // ----- reading under a shard lock -----

    /// The node's name, read without a lock.
    #[inline]
    pub(crate) fn name(&self, h: Handle) -> Option<&str> {
        let rec = self.rec(h)?;
        (!rec.is_link()).then(|| self.view(h.shard()).name(rec))
    }

    /// The link's outgoing set (empty for nodes), read without a lock.
    #[inline]
    pub(crate) fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        let rec = self.rec(h)?;
        Some(if rec.is_link() { self.view(h.shard()).out(rec) } else { &[] })
    }

    /// Shard `s`'s slots and arenas.
    #[inline]
    fn view(&self, s: usize) -> View<'_> {
        View { slots: &self.records[s], hashes: &self.hashes[s], names: &self.names[s], outgoing: &self.outgoing[s] }
    }

    pub(crate) fn incoming_in<'s>(&self, sh: &'s Shard, h: Handle) -> Option<&'s [Handle]> {
        self.rec(h)?;
        Some(sh.incoming(self.inc_store_for(sh, h.shard()), h.local()))
    }

    /// Size of `h`'s incoming set without any lock: the header is one atomic
    /// word, always consistent.
    #[inline]
    pub(crate) fn incoming_size(&self, h: Handle) -> Option<usize> {
        let slot = self.records[h.shard()].get(h.local() as usize)?;
        Rec(slot.rec.load(Ordering::Acquire)).live().then(|| Inc::unpack(slot.inc.load(Ordering::Acquire)).len())
    }

    /// Shard `s`'s incoming-set storage.
    #[inline]
    fn inc_store(&self, s: usize) -> IncStore<'_> {
        IncStore { slots: &self.records[s], cells: &self.pool_cells[s], seq: &self.inc_seq[s] }
    }

    /// Shard `s`'s incoming-set storage, borrowed for as long as `sh`, a
    /// shard of this very store: incoming slices borrow from the slots and
    /// the pool while callers hold (and map) only the shard's guard.
    #[inline]
    fn inc_store_for<'s>(&self, _sh: &'s Shard, s: usize) -> IncStore<'s> {
        let me: *const Records = self;
        // SAFETY: a `Store` owns its records and its shards and drops them
        // together, so the records outlive every borrow of one of its shards;
        // slots and pool cells never move while the store lives.
        unsafe { &*me }.inc_store(s)
    }

    /// Copies `h`'s incoming set into `out` without a lock, retrying while
    /// a writer changes the shard's incoming sets: `Some(live)`, or `None`
    /// if writers kept it busy, when the caller copies under the lock.
    pub(crate) fn incoming_copy(&self, h: Handle, out: &mut SmallVec<[Handle; 8]>) -> Option<bool> {
        let st = self.inc_store(h.shard());
        let Some(slot) = st.slots.get(h.local() as usize) else { return Some(false) };
        for _ in 0..16 {
            out.clear();
            let v = st.seq.load(Ordering::Acquire);
            if v & 1 == 0 {
                let live = Rec(slot.rec.load(Ordering::Acquire)).live();
                let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
                let whole = match (inc.len(), inc.class()) {
                    (0, _) => true,
                    (1, 0) => {
                        out.push(inc.first);
                        true
                    }
                    (n, _) => match st.cells.try_slice(inc.first.0 as usize, n) {
                        Some(cells) => {
                            out.extend(cells.iter().map(|c| Handle(c.load(Ordering::Relaxed))));
                            true
                        }
                        // A header caught mid-change: the check below fails too.
                        None => false,
                    },
                };
                std::sync::atomic::fence(Ordering::Acquire);
                if whole && st.seq.load(Ordering::Relaxed) == v {
                    return Some(live);
                }
            }
            std::hint::spin_loop();
        }
        None
    }

    // ----- scanning -----

    /// Block starts of type `t` in shard `s` (the caller copies or borrows them).
    pub(crate) fn blocks_in(sh: &Shard, t: Type) -> &[u32] {
        sh.by_type.get(usize::from(t.0)).map_or(&[], |ts| ts.blocks.as_slice())
    }

    /// Live atoms in the block starting at `start` of shard `s`.
    pub(crate) fn block_atoms(&self, s: usize, start: u32) -> impl Iterator<Item = Handle> + '_ {
        let recs = &self.records[s];
        (start..start + BLOCK).filter_map(move |l| {
            let r = Rec(recs.get(l as usize)?.rec.load(Ordering::Acquire));
            r.live().then(|| Handle::new(s, l))
        })
    }

    pub(crate) fn count_in(sh: &Shard, t: Type) -> usize {
        sh.lanes.iter().map(|l| l.slots.get(usize::from(t.0)).map_or(0, |ls| ls.live)).sum::<isize>() as usize
    }

    pub(crate) fn counts_in(sh: &Shard) -> (usize, usize) {
        (sh.nodes as usize, sh.links as usize)
    }

    /// Types that have slots in shard `sh`.
    pub(crate) fn types_in(sh: &Shard) -> impl Iterator<Item = Type> + '_ {
        sh.by_type.iter().enumerate().filter(|(_, ts)| !ts.blocks.is_empty()).map(|(i, _)| Type(i as u16))
    }
}

/// Sets and clears flag bits of a record. Only the holder of the shard's
/// write lock writes records, so a plain store does (an atomic
/// read-modify-write would cost a locked instruction on every change).
#[inline]
fn set_flags(word: &AtomicU64, set: u64, clear: u64) {
    let old = word.load(Ordering::Relaxed);
    let new = (old | set) & !clear;
    if new != old {
        word.store(new, Ordering::Release);
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

/// One shard's lock-free parts: slots and arenas.
struct View<'a> {
    slots: &'a SegVec<Slot>,
    hashes: &'a SegVec<AtomicU32>,
    names: &'a Arena<AtomicU8>,
    outgoing: &'a Arena<AtomicU32>,
}

impl<'a> View<'a> {
    #[inline]
    fn rec(&self, l: u32) -> Rec {
        Rec(self.slots.get(l as usize).expect("slot exists").rec.load(Ordering::Acquire))
    }

    /// The stored content hash of the atom in slot `l`.
    #[inline]
    fn hash(&self, l: u32) -> u32 {
        self.hashes.get(l as usize).expect("slot exists").load(Ordering::Relaxed)
    }

    /// The name of a published node record.
    #[inline]
    fn name(&self, rec: Rec) -> &'a str {
        let off = rec.payload() as usize;
        let bytes = if rec.len_field() == LEN_ESCAPE {
            let len = u32::from_le_bytes(self.names.get(off, 4).try_into().expect("four bytes")) as usize;
            self.names.get(off + 4, len)
        } else {
            self.names.get(off, rec.len_field() as usize)
        };
        // SAFETY: names are copied in from `&str` whole, so every range is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// The dedupe test for a node: is slot `l` the live node `t` named `name`?
    #[inline]
    fn is_node<'n>(&'n self, t: Type, name: &'n str) -> impl Fn(u32) -> bool + 'n {
        move |l| {
            let r = self.rec(l);
            r.live() && !r.is_link() && r.ty() == t && same_bytes(self.name(r).as_bytes(), name.as_bytes())
        }
    }

    /// The dedupe test for a link: is slot `l` the live link `t` over `out`?
    #[inline]
    fn is_link<'n>(&'n self, t: Type, out: &'n [Handle]) -> impl Fn(u32) -> bool + 'n {
        move |l| {
            let r = self.rec(l);
            r.live() && r.is_link() && r.ty() == t && self.out(r) == out
        }
    }

    /// The outgoing set of a published link record.
    #[inline]
    fn out(&self, rec: Rec) -> &'a [Handle] {
        let off = rec.payload() as usize;
        if rec.len_field() == LEN_ESCAPE {
            let len = self.outgoing.get(off, 1)[0].0 as usize;
            &self.outgoing.get(off, len + 1)[1..]
        } else {
            self.outgoing.get(off, rec.len_field() as usize)
        }
    }
}

/// The part of a content hash that dedupe tables use and slots keep.
#[inline]
fn short(hash: u64) -> u32 {
    hash as u32
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

    #[inline(always)]
    fn alloc_slot(&mut self, l: usize, recs: &SegVec<Slot>, hashes: &SegVec<AtomicU32>, next_slot: &SlotNumbers, t: Type) -> Result<u32> {
        match self.lanes[l].slots.get_mut(usize::from(t.0)) {
            Some(ls) if ls.cursor != ls.end => {
                let local = ls.cursor;
                ls.cursor += 1;
                ls.live += 1;
                Ok(local)
            }
            _ => self.alloc_slot_block(l, recs, hashes, next_slot, t),
        }
    }

    /// `alloc_slot` when the lane's block of the type is used up: a new block.
    #[cold]
    #[inline(never)]
    fn alloc_slot_block(&mut self, l: usize, recs: &SegVec<Slot>, hashes: &SegVec<AtomicU32>, next_slot: &SlotNumbers, t: Type) -> Result<u32> {
        let ti = usize::from(t.0);
        if self.by_type.len() <= ti {
            self.by_type.resize(ti + 1, TypeSlots::default());
        }
        let start = next_slot.take_block().ok_or(Error::HandlesExhausted)?;
        self.high = self.high.max(start + BLOCK);
        recs.ensure(self.high as usize);
        hashes.ensure(self.high as usize);
        self.by_type[ti].blocks.push(start);
        let ls = self.lane_slots(l, t);
        ls.cursor = start + 1;
        ls.end = start + BLOCK;
        ls.live += 1;
        Ok(start)
    }

    /// Lane `l`'s slots of type `t`.
    fn lane_slots(&mut self, l: usize, t: Type) -> &mut LaneSlots {
        let slots = &mut self.lanes[l].slots;
        let ti = usize::from(t.0);
        if slots.len() <= ti {
            slots.resize(ti + 1, LaneSlots::default());
        }
        &mut slots[ti]
    }

    /// Takes back the slot `alloc_slot` just gave out, when the add fails.
    fn free_slot(&mut self, l: usize, t: Type, local: u32) {
        let ls = self.lane_slots(l, t);
        debug_assert_eq!(ls.cursor, local + 1);
        ls.cursor = local;
        ls.live -= 1;
    }

    /// The incoming set of slot `local`, in place. The caller holds the
    /// shard's lock (or exclusive access).
    #[inline]
    fn incoming<'s>(&self, st: IncStore<'s>, local: u32) -> &'s [Handle] {
        let Some(slot) = st.slots.get(local as usize) else { return &[] };
        let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
        match (inc.len(), inc.class()) {
            (0, _) => &[],
            (1, 0) => {
                // SAFETY: the low half of the header holds the inline member
                // (little-endian, checked above); the caller's lock on this
                // shard keeps writers out while the borrow lives.
                std::slice::from_ref(unsafe { &*(&slot.inc as *const AtomicU64 as *const Handle) })
            }
            (n, _) => block(st.cells, inc.first.0 as usize, n),
        }
    }

    /// Adds `link` to `slot`'s incoming set, whose pool is `cells`. The
    /// caller holds the shard's write lock and a `SeqWrite` section of its
    /// sequence counter.
    #[inline(always)]
    fn inc_push(&mut self, slot: &Slot, cells: &SegVec<AtomicU32>, link: Handle) {
        let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
        let (n, class) = (inc.len(), inc.class());
        let new = if n == 0 {
            Inc { first: link, meta: 1 }
        } else if class > 0 && n < (1usize << class).min(INC_LEN_MASK as usize) {
            cell_set(cells, inc.first.0 as usize + n, link);
            Inc { first: inc.first, meta: (n as u32 + 1) | (class << 27) }
        } else {
            self.inc_move(cells, inc, link)
        };
        slot.inc.store(new.pack(), Ordering::Relaxed);
    }

    /// `inc_push` when the set outgrows its place (the inline member or a
    /// full block): moves it to a block of the next class, with `link`.
    #[inline(never)]
    fn inc_move(&mut self, cells: &SegVec<AtomicU32>, inc: Inc, link: Handle) -> Inc {
        let n = inc.len();
        assert!(n < INC_LEN_MASK as usize, "incoming set larger than 2^27");
        let class = inc.class() + 1;
        let off = self.pool.alloc(cells, class);
        if class == 1 {
            // From the inline member: nothing to copy from or free.
            cell_set(cells, off as usize, inc.first);
        } else {
            cells_copy(cells, inc.first.0 as usize, off as usize, n);
            self.pool.release(inc.first.0, class - 1);
        }
        cell_set(cells, off as usize + n, link);
        Inc { first: Handle(off), meta: (n as u32 + 1) | (class << 27) }
    }

    /// Removes `link` from slot `local`'s incoming set; the caller holds as for `inc_push`.
    fn inc_remove(&mut self, st: IncStore<'_>, local: u32, link: Handle) {
        let Some(slot) = st.slots.get(local as usize) else { return };
        let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
        let cells = st.cells;
        let new = match (inc.len(), inc.class()) {
            (0, _) => return,
            (1, 0) => {
                if inc.first != link {
                    return;
                }
                Inc { first: Handle(0), meta: 0 }
            }
            (n, class) => {
                let off = inc.first.0 as usize;
                // Recently added links are the likeliest to go first.
                let Some(pos) = block(cells, off, n).iter().rposition(|&x| x == link) else { return };
                cell_set(cells, off + pos, cell_get(cells, off + n - 1));
                let n = n - 1;
                let new = if n == 1 {
                    let only = cell_get(cells, off);
                    self.pool.release(off as u32, class);
                    Inc { first: only, meta: 1 }
                } else if class > 2 && n <= 1 << (class - 2) {
                    // Shrink at a quarter full, so a set that hovers at a size never thrashes.
                    let new_off = self.pool.alloc(cells, class - 1);
                    cells_copy(cells, off, new_off as usize, n);
                    self.pool.release(off as u32, class);
                    Inc { first: Handle(new_off), meta: n as u32 | ((class - 1) << 27) }
                } else {
                    Inc { first: inc.first, meta: n as u32 | (class << 27) }
                };
                slot.inc.store(new.pack(), Ordering::Relaxed);
                return;
            }
        };
        slot.inc.store(new.pack(), Ordering::Relaxed);
    }
}

/// Byte equality, names of up to 16 bytes compared in two overlapping
/// word loads each instead of a call.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if (8..=16).contains(&n) {
        let w = |x: &[u8], at: usize| u64::from_le_bytes(x[at..at + 8].try_into().expect("eight bytes"));
        return w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8);
    }
    if (4..8).contains(&n) {
        let w = |x: &[u8], at: usize| u32::from_le_bytes(x[at..at + 4].try_into().expect("four bytes"));
        return w(a, 0) == w(b, 0) && w(a, n - 4) == w(b, n - 4);
    }
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A simple truth value set over a count or a stream forgets it, and
    /// one set again over a simple one finds nothing to forget.
    #[test]
    fn a_truth_value_forgets_the_count_or_stream_it_replaces() {
        let store = Store::new();
        let recs = &store.recs;
        let hash = recs.hash_node(CONCEPT_NODE, "a");
        let mut sh = store.write(Records::home_of_hash(hash));
        let h = recs.add_node_in(&mut sh, hash, CONCEPT_NODE, "a", false).unwrap();
        let simple = TruthValue::simple(0.5, 0.25);
        recs.set_tv_in(&mut sh, h, TruthValue::count(0.5, 0.25, 3.0), false).unwrap();
        assert_eq!(sh.tv_counts.len(), 1);
        recs.set_tv_in(&mut sh, h, simple, false).unwrap();
        assert!(sh.tv_counts.is_empty(), "the count outlived its mark");
        recs.set_tv_stream_in(&mut sh, h, StreamValue::random(2), false).unwrap();
        recs.set_tv_in(&mut sh, h, TruthValue::count(0.5, 0.25, 4.0), false).unwrap();
        assert!(!sh.has_tv_streams(), "the stream outlived its mark");
        recs.set_tv_in(&mut sh, h, simple, false).unwrap();
        recs.set_tv_in(&mut sh, h, simple, false).unwrap();
        assert!(sh.tv_counts.is_empty() && !sh.has_tv_streams());
        assert!(matches!(recs.get_tv_in(&sh, h), Some(TvEntry::Tv(tv)) if tv == simple));
        // A count over a count, a stream over a count and over a stream.
        let count = TruthValue::count(0.5, 0.25, 5.0);
        recs.set_tv_in(&mut sh, h, TruthValue::count(0.5, 0.25, 1.0), false).unwrap();
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
}
