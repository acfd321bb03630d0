//! The record: one `u64` per slot saying what the slot holds (type,
//! flags, length, arena offset), beside the atom's incoming-set header in
//! a 16-byte [`Slot`], and the lock-free view of a shard's records and
//! arenas that lookups, dedupe tests and readers use.
//!
//! **Invariant:** a record is written only under its shard's write lock
//! and published with a release store after the content it points to, so a
//! reader that sees a live record sees its whole name or outgoing set.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::arena::Arena;
use crate::handle::{Handle, LOCAL_LIMIT};
use crate::segvec::{SegVec, Zeroable};
use crate::types::Type;

use super::Records;

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
pub(super) const LEN_SHIFT: u32 = 32;

pub(super) const TYPE_SHIFT: u32 = 48;

pub(super) const LEN_ESCAPE: u32 = 0xFFFF;

pub(super) const LIVE: u64 = 1 << 60;

pub(super) const HAS_TV: u64 = 1 << 61;

pub(super) const HAS_VALUES: u64 = 1 << 62;

pub(super) const IS_LINK: u64 = 1 << 63;

/// In a child space, the record of a base atom it has hidden (extracted for itself).
pub(super) const HIDDEN: u64 = IS_LINK;

/// A decoded record.
#[derive(Copy, Clone)]
pub(crate) struct Rec(pub(super) u64);

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
    pub(super) fn has_values(self) -> bool {
        self.0 & HAS_VALUES != 0
    }
    #[inline]
    fn len_field(self) -> u32 {
        ((self.0 >> LEN_SHIFT) & 0xFFFF) as u32
    }
    #[inline]
    pub(super) fn payload(self) -> u32 {
        self.0 as u32
    }
}

/// One slot: the lock-free record beside the incoming-set header, in one
/// 16-byte cell, so that checking a member and appending to its incoming set
/// (or reading both) costs one cache miss, not two. The header is written
/// only under the shard's write lock and read under its read lock.
#[repr(C, align(16))]
pub struct Slot {
    pub(super) rec: AtomicU64,
    /// `Inc::pack`ed: the inline member in the low half, then `meta`.
    pub(super) inc: AtomicU64,
}

// SAFETY: two atomics; all-zero is "no atom, empty incoming set".
unsafe impl Zeroable for Slot {}

/// Sets and clears flag bits of a record. Only the holder of the shard's
/// write lock writes records, so a plain store does (an atomic
/// read-modify-write would cost a locked instruction on every change).
#[inline]
pub(super) fn set_flags(word: &AtomicU64, set: u64, clear: u64) {
    let old = word.load(Ordering::Relaxed);
    let new = (old | set) & !clear;
    if new != old {
        word.store(new, Ordering::Release);
    }
}

/// One shard's lock-free parts: slots and arenas.
pub(super) struct View<'a> {
    slots: &'a SegVec<Slot>,
    hashes: &'a SegVec<AtomicU32>,
    names: &'a Arena<AtomicU8>,
    outgoing: &'a Arena<AtomicU32>,
}

impl<'a> View<'a> {
    #[inline]
    pub(super) fn rec(&self, l: u32) -> Rec {
        Rec(self.slots.get(l as usize).expect("slot exists").rec.load(Ordering::Acquire))
    }

    /// The stored content hash of the atom in slot `l`.
    #[inline]
    pub(super) fn hash(&self, l: u32) -> u32 {
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
    pub(super) fn is_node<'n>(&'n self, t: Type, name: &'n str) -> impl Fn(u32) -> bool + 'n {
        move |l| {
            let r = self.rec(l);
            r.live() && !r.is_link() && r.ty() == t && same_bytes(self.name(r).as_bytes(), name.as_bytes())
        }
    }

    /// The dedupe test for a link: is slot `l` the live link `t` over `out`?
    #[inline]
    pub(super) fn is_link<'n>(&'n self, t: Type, out: &'n [Handle]) -> impl Fn(u32) -> bool + 'n {
        move |l| {
            let r = self.rec(l);
            r.live() && r.is_link() && r.ty() == t && self.out(r) == out
        }
    }

    /// The outgoing set of a published link record.
    #[inline]
    pub(super) fn out(&self, rec: Rec) -> &'a [Handle] {
        let off = rec.payload() as usize;
        if rec.len_field() == LEN_ESCAPE {
            let len = self.outgoing.get(off, 1)[0].0 as usize;
            &self.outgoing.get(off, len + 1)[1..]
        } else {
            self.outgoing.get(off, rec.len_field() as usize)
        }
    }
}

/// Byte equality, names of up to 16 bytes compared in two overlapping
/// word loads each instead of a call.
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
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

impl Records {
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
    pub(super) fn view(&self, s: usize) -> View<'_> {
        View { slots: &self.records[s], hashes: &self.hashes[s], names: &self.names[s], outgoing: &self.outgoing[s] }
    }
}
