//! Slot allocation and the per-type index: slots are handed out in blocks
//! of [`BLOCK`] per type and shard, from per-thread lanes, so the type
//! index is a list of block starts (4 bytes per 64 atoms) and a type scan
//! reads contiguous records.
//!
//! **Invariant:** a slot number is given out once in a store's life; a
//! block belongs to one type; `LaneSlots::live` counts the live atoms of
//! its type that the lane's blocks hold.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use crate::arena::Chunk;
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::segvec::SegVec;
use crate::types::Type;

use super::record::{Rec, Slot, BLOCK};
use super::{Records, Shard, SlotNumbers};

/// Slot blocks of one type in one shard. Slot numbers are never reused.
#[derive(Default, Clone)]
pub(super) struct TypeSlots {
    pub(super) blocks: Vec<u32>,
}

/// Lanes of a shard: each thread adds through one (`lane()`), taking slots
/// from its own block of the type and arena room from its own chunk, so
/// that two threads adding to a shard in turn write different lines (only
/// the lock's line passes between their cores). Two threads that shared
/// every block and arena end stalled on each other's lines at every add.
pub(super) const LANES: usize = 4;

/// Arena cells a lane takes at a time.
pub(super) const CHUNK: usize = 256;

/// The lane of the calling thread: threads take lanes in turn.
#[inline]
pub(super) fn lane() -> usize {
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
pub(super) struct Lane {
    /// By type: the lane's current block.
    pub(super) slots: Vec<LaneSlots>,
    pub(super) names: Chunk,
    pub(super) outgoing: Chunk,
}

#[derive(Default, Clone, Copy)]
pub(super) struct LaneSlots {
    cursor: u32,
    end: u32,
    /// Atoms of the type added through the lane, less those removed
    /// through it (so it may be negative); a type's count is the sum.
    pub(super) live: isize,
}

/// The slot blocks of the node types (or the link types) of `by_type`.
/// The blocks of both kinds' types where a type holds both: a foreign
/// AST's leaves are nodes of a link type, in its blocks.
pub(super) fn blocks_of_kind(by_type: &[TypeSlots], links: bool) -> impl Iterator<Item = &u32> {
    by_type
        .iter()
        .enumerate()
        .filter(move |(t, _)| {
            let t = Type(*t as u16);
            t.is_link() == links || t.has_named_leaves()
        })
        .flat_map(|(_, ts)| &ts.blocks)
}

impl Records {
    /// The live links (or nodes) of shard `s` in `blocks` (from
    /// `blocks_of_kind`), with their stored hashes, in slot order: what the
    /// shard's link (or node) dedupe table holds, for growing it.
    pub(super) fn live_of_kind<'a>(&'a self, s: usize, blocks: impl Iterator<Item = u32> + 'a, links: bool) -> impl Iterator<Item = (u32, u32)> + 'a {
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

impl Shard {
    #[inline(always)]
    pub(super) fn alloc_slot(&mut self, l: usize, recs: &SegVec<Slot>, hashes: &SegVec<AtomicU32>, next_slot: &SlotNumbers, t: Type) -> Result<u32> {
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
    pub(super) fn lane_slots(&mut self, l: usize, t: Type) -> &mut LaneSlots {
        let slots = &mut self.lanes[l].slots;
        let ti = usize::from(t.0);
        if slots.len() <= ti {
            slots.resize(ti + 1, LaneSlots::default());
        }
        &mut slots[ti]
    }

    /// Takes back the slot `alloc_slot` just gave out, when the add fails.
    pub(super) fn free_slot(&mut self, l: usize, t: Type, local: u32) {
        let ls = self.lane_slots(l, t);
        debug_assert_eq!(ls.cursor, local + 1);
        ls.cursor = local;
        ls.live -= 1;
    }
}
