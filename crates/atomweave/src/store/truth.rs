//! Truth values and their count/stream protocol, in one place.
//!
//! Each atom's truth value lives in a 16-byte atomic entry on a page per
//! slot block. A simple truth value is the entry itself: read and
//! replaced without a lock. So is a count truth value whose numbers fit
//! ([`inline_count_bits`]: counts of whole numbers, as the counting
//! pipelines keep, with a mean and confidence that are exact as `f32`).
//! Another count truth value marks its entry with [`COUNT_MARK`] and keeps
//! mean and count in the shard's `tv_counts`; a FormulaTruthValue marks it
//! with [`STREAM_MARK`] and keeps the stream in `tv_streams`. The record's `HAS_TV` flag says whether the entry holds
//! anything.
//!
//! **Invariant:** a marked entry's count or stream is present under the
//! shard's lock; every set forgets what the old entry's mark named
//! ([`forget_marked`]) before it writes; locked writers that compute from
//! the entry (counts) write back with a compare-exchange, so a lock-free
//! store is never lost between their read and their write.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use portable_atomic::AtomicU128;

use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::segvec::SegVec;
use crate::value::{StreamValue, TruthValue};

use super::record::{set_flags, Rec, BLOCK, HAS_TV};
use super::{Records, Shard};

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
pub(super) struct TvPages(SegVec<AtomicPtr<TvPage>, 4>);

impl TvPages {
    #[inline]
    fn page(&self, local: u32) -> *mut TvPage {
        self.0.get((local / BLOCK) as usize).map_or(ptr::null_mut(), |p| p.load(Ordering::Acquire))
    }

    /// The entry of `local`, if its page exists.
    #[inline]
    pub(super) fn entry(&self, local: u32) -> Option<&AtomicU128> {
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

    pub(super) fn allocated_bytes(&self) -> usize {
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
pub(super) fn simple_bits(strength: f64, confidence: f64) -> u128 {
    tv_bits(if strength.is_nan() { f64::NAN } else { strength }.to_bits(), confidence)
}

/// What removal leaves in an entry: a reader that saw the `HAS_TV` flag
/// just before it was cleared reads the default, never a half-made value.
const DEFAULT_TV_BITS: u128 = 1.0f64.to_bits() as u128;

/// The truth value an entry holds in itself: a simple one or an inline
/// count (not one marked as kept under the lock).
#[inline]
fn unmarked_of(bits: u128) -> TruthValue {
    let low = bits as u64;
    if (low >> 32) as u32 == INLINE_COUNT_TAG {
        let high = (bits >> 64) as u64;
        let (mean, confidence) = (f32::from_bits(low as u32), f32::from_bits(high as u32));
        return TruthValue::Count { mean: mean.into(), confidence: confidence.into(), count: f64::from((high >> 32) as u32) };
    }
    TruthValue::Simple { strength: f64::from_bits(low), confidence: f64::from_bits((bits >> 64) as u64) }
}

/// The high half of an inline count's low word: with any low half, a NaN
/// that arithmetic does not produce (stored NaN strengths are the
/// canonical NaN), distinct from the marks below.
const INLINE_COUNT_TAG: u32 = 0x7ff4_a70d;

/// A count truth value as one entry, when its numbers fit: the tag and the
/// mean as `f32` low, the confidence as `f32` and the count as `u32` high.
/// Only if each comes back bit for bit: a mean and confidence exact as
/// `f32` (1 and 0, as counting pipelines set them, or any other), and a
/// whole count from 0 to 2^32 - 1. A count kept so is read and replaced
/// without a lock, and costs 16 bytes an atom instead of about 50.
#[inline]
fn inline_count_bits(mean: f64, confidence: f64, count: f64) -> Option<u128> {
    let (m, c, n) = (mean as f32, confidence as f32, count as u32);
    let exact = f64::from(m).to_bits() == mean.to_bits() && f64::from(c).to_bits() == confidence.to_bits() && f64::from(n).to_bits() == count.to_bits();
    exact.then(|| (u64::from(INLINE_COUNT_TAG) << 32 | u64::from(m.to_bits())) as u128 | ((u64::from(n) << 32 | u64::from(c.to_bits())) as u128) << 64)
}

/// The entry bits of a count truth value: inline when it fits, else
/// [`COUNT_MARK`] with mean and count put in `counts`.
#[inline]
fn count_bits(counts: &mut HashMap<u32, [f64; 2], FixedState>, local: u32, mean: f64, confidence: f64, count: f64) -> u128 {
    inline_count_bits(mean, confidence, count).unwrap_or_else(|| {
        counts.insert(local, [mean, count]);
        tv_bits(COUNT_MARK, confidence)
    })
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

impl Records {
    /// Starts fetching what setting `h`'s truth value or values reads
    /// first: its slot and its truth-value entry.
    #[inline]
    pub(crate) fn prefetch_values(&self, h: Handle) {
        self.prefetch_slot(h);
        if let Some(entry) = self.tv_pages[h.shard()].entry(h.local()) {
            crate::prefetch(entry as *const AtomicU128);
        }
    }

    /// Replaces `h`'s truth value with the simple `tv`, without the shard's
    /// lock: one 16-byte store. Only where `h` is live and its entry holds
    /// its truth value already, simple or an inline count (its page exists,
    /// the `HAS_TV` flag, which changes only under the lock, is set, and no
    /// mark names something kept beside it) and `tv` is not the
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

    /// `h`'s truth value read without a lock, where its entry holds it
    /// (a simple one or an inline count): `None` for a count or a stream
    /// kept under the lock, or no entry. The caller saw the `HAS_TV` flag.
    #[inline]
    pub(crate) fn unlocked_tv(&self, h: Handle) -> Option<TruthValue> {
        let bits = self.tv_pages[h.shard()].entry(h.local())?.load(Ordering::Acquire);
        (!is_marked(bits)).then(|| unmarked_of(bits))
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
            _ => TvEntry::Tv(unmarked_of(bits)),
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
            let tv = current.incremented(n);
            let TruthValue::Count { mean, confidence, count } = tv else { unreachable!("incremented makes counts") };
            let Some((entry, bits)) = seen else {
                // No entry in use: lock-free writers leave it alone.
                self.set_tv_in(sh, h, tv, foreign)?;
                return Ok(tv);
            };
            let new = count_bits(&mut sh.tv_counts, local, mean, confidence, count);
            if entry.compare_exchange(bits, new, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                if bits as u64 == COUNT_MARK && new as u64 != COUNT_MARK {
                    sh.tv_counts.remove(&local);
                }
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
                entry.store(count_bits(&mut sh.tv_counts, local, mean, confidence, count), Ordering::Release);
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
    pub(super) fn tv_remove(&self, sh: &mut Shard, s: usize, local: u32) {
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
}
