//! Incoming sets: a header in each slot (inline for one member, else an
//! offset into the shard's size-classed pool), changed under the shard's
//! write lock and copied without a lock under the shard's sequence counter.
//!
//! **Invariant:** every change to an incoming set happens inside a
//! [`SeqWrite`] section of its shard (the counter is odd meanwhile), and a
//! link is in its members' incoming sets from the moment it is visible
//! until it is extracted, each distinct member once.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;
use smallvec::SmallVec;

use crate::handle::{Handle, SHARDS};
use crate::segvec::{fit, SegVec};

use super::locks::for_each_bit;
use super::record::{Rec, Slot};
use super::{Records, Shard};

/// Incoming-set header. `meta` holds the length (low 27 bits) and the pool
/// block class (high 5 bits, capacity `1 << class`). With class 0 the set has
/// at most one member, kept inline in `first`; otherwise `first` is the pool
/// offset of the block.
#[derive(Copy, Clone)]
pub(super) struct Inc {
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

/// The smallest block class whose pages go back to the system when the
/// block is freed: 4,096 members, 16 KiB.
const RELEASED_CLASS: u32 = 12;

/// Size-classed blocks of incoming-set members. The cells live in the
/// shard's lock-free half ([`Records`]) and never move: lock-free readers
/// copy blocks under the shard's sequence lock. This is the bookkeeping,
/// kept under the shard's lock.
#[derive(Default)]
pub(super) struct Pool {
    end: usize,
    pub(super) free: [Vec<u32>; 28],
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

    /// Frees the block at `off`. A big one gives its pages back to the
    /// system until it is handed out again: the largest sets (a predicate
    /// every link of a kind holds) grow through blocks that no other set
    /// is big enough to take, which stayed resident, as big as the set.
    /// Lock-free readers copying it meanwhile read zeroes under a sequence
    /// count that sends them back to read again.
    fn release(&mut self, cells: &SegVec<AtomicU32>, off: u32, class: u32) {
        if class >= RELEASED_CLASS {
            crate::pages::release(cells.slice(off as usize, 1 << class));
        }
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
pub(super) struct SeqWrite<'a> {
    seq: &'a [CachePadded<AtomicU64>; SHARDS],
    mask: u32,
}

impl<'a> SeqWrite<'a> {
    pub(super) fn begin(seq: &'a [CachePadded<AtomicU64>; SHARDS], mask: u32) -> Self {
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

/// The positions of the distinct members of a list, each member's first.
/// Short lists (most links) are checked in place, a compare or two per
/// member; long ones sorted once.
pub(super) enum Distinct<'a> {
    Short { out: &'a [Handle], next: usize },
    Long(std::vec::IntoIter<usize>),
}

impl<'a> Distinct<'a> {
    #[inline]
    pub(super) fn of(out: &'a [Handle]) -> Self {
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

impl Records {
    /// Starts fetching the end of `x`'s incoming block, whose slot is
    /// `slot`: the last member (copied if the block grows) and the cell a
    /// new link is appended to.
    #[inline]
    pub(super) fn prefetch_append(&self, x: Handle, slot: &Slot) {
        let inc = Inc::unpack(slot.inc.load(Ordering::Relaxed));
        if inc.class() > 0 {
            let end = inc.first.0 as usize + inc.len();
            self.pool_cells[x.shard()].prefetch(end - 1);
            self.pool_cells[x.shard()].prefetch(end);
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
    pub(super) fn seq_sections(&self, members: &[Handle], own: impl Fn(Handle) -> bool) -> SeqWrite<'_> {
        let mut mask = 0u32;
        for &x in members {
            let s = x.shard();
            if mask & (1 << s) == 0 && own(x) {
                mask |= 1 << s;
            }
        }
        SeqWrite::begin(&self.inc_seq, mask)
    }

    /// Links of this store that contain `h` (an atom of this store or a base atom).
    pub(crate) fn own_incoming_in<'s>(&self, sh: &'s Shard, h: Handle) -> &'s [Handle] {
        sh.incoming(self.inc_store_for(sh, h.shard()), h.local())
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
    pub(super) fn inc_store(&self, s: usize) -> IncStore<'_> {
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
}

impl Shard {
    /// The incoming set of slot `local`, in place. The caller holds the
    /// shard's lock (or exclusive access).
    #[inline]
    pub(super) fn incoming<'s>(&self, st: IncStore<'s>, local: u32) -> &'s [Handle] {
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
    pub(super) fn inc_push(&mut self, slot: &Slot, cells: &SegVec<AtomicU32>, link: Handle) {
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
            self.pool.release(cells, inc.first.0, class - 1);
        }
        cell_set(cells, off as usize + n, link);
        Inc { first: Handle(off), meta: (n as u32 + 1) | (class << 27) }
    }

    /// Removes `link` from slot `local`'s incoming set; the caller holds as for `inc_push`.
    pub(super) fn inc_remove(&mut self, st: IncStore<'_>, local: u32, link: Handle) {
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
                    self.pool.release(cells, off as u32, class);
                    Inc { first: only, meta: 1 }
                } else if class > 2 && n <= 1 << (class - 2) {
                    // Shrink at a quarter full, so a set that hovers at a size never thrashes.
                    let new_off = self.pool.alloc(cells, class - 1);
                    cells_copy(cells, off, new_off as usize, n);
                    self.pool.release(cells, off as u32, class);
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
