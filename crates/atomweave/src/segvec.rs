//! A growable array whose elements never move, so readers can index it
//! without a lock while one writer (holding the owner's lock) grows it.
//!
//! Segment `k` holds `(1 << B) << k` elements (`B` a type parameter); an
//! index maps to its segment with one `leading_zeros`. Segments come
//! zero-filled from the allocator (`calloc`), so untouched stretches cost no
//! resident memory: an array indexed sparsely (a child space's slots start
//! where its base's left off) stays cheap.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::marker::PhantomData;
use std::ptr;
#[cfg(test)]
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicPtr, Ordering};

const BASE_BITS: u32 = 10;
const BASE: usize = 1 << BASE_BITS;
const SEGMENTS: usize = 24;

/// Types whose all-zero bit pattern is a valid value.
///
/// # Safety
/// Implement only for types for which zeroed memory is a valid, initialized value
/// and which need no `Drop`.
pub(crate) unsafe trait Zeroable {}

// SAFETY: zero is a valid AtomicU64 and it needs no drop.
#[cfg(test)]
unsafe impl Zeroable for AtomicU64 {}

// SAFETY: all-zero is the null pointer; an `AtomicPtr` owns nothing to drop.
unsafe impl<T> Zeroable for AtomicPtr<T> {}

/// `B` sets the first segment's size, `1 << B` elements: small for arrays
/// that many small stores each keep.
pub(crate) struct SegVec<T: Zeroable, const B: u32 = BASE_BITS> {
    /// Segment `k`'s start, moved back by the `(1 << B) << k` indices
    /// before it (null while the segment is not allocated): index `i` is
    /// then at `bases[k] + i + (1 << B)`, one add where the start would
    /// need a shift and a subtract as well, on every lookup.
    bases: [AtomicPtr<T>; SEGMENTS],
    _owns: PhantomData<T>,
}

// SAFETY: a SegVec owns its elements like a Vec does; shared access hands out `&T` only.
unsafe impl<T: Zeroable + Send, const B: u32> Send for SegVec<T, B> {}
// SAFETY: as above; `&SegVec` yields `&T`, so `T: Sync` is what sharing needs.
unsafe impl<T: Zeroable + Sync, const B: u32> Sync for SegVec<T, B> {}

/// Segment and offset of index `i` when the first segment holds `1 << B`.
#[inline]
fn locate_in<const B: u32>(i: usize) -> (usize, usize) {
    let j = i + (1 << B);
    let k = log2(j) - B;
    (k as usize, j - ((1 << B) << k))
}

#[inline]
fn locate(i: usize) -> (usize, usize) {
    locate_in::<BASE_BITS>(i)
}

/// The segment holding index `i`, for the default first segment: its first
/// index and its length.
#[inline]
pub(crate) fn segment_of(i: usize) -> (usize, usize) {
    let (k, off) = locate(i);
    (i - off, BASE << k)
}

/// The first index at or after `start` from which `len` elements lie in one
/// segment (of the default sizes), so that they read back as one slice. The
/// skipped tail of a segment stays unused.
pub(crate) fn fit(mut start: usize, len: usize) -> usize {
    if len == 0 {
        return start;
    }
    loop {
        let (seg_start, seg_len) = segment_of(start);
        if start + len <= seg_start + seg_len {
            return start;
        }
        start = seg_start + seg_len;
    }
}

/// `floor(log2(j))` for `j > 0`.
#[inline(always)]
fn log2(j: usize) -> u32 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let k: usize;
        // `bsr` leaves its output untouched for a zero input, so CPUs treat
        // the output register as an input too. When the compiler reuses a
        // register that holds the previous lookup's loaded record, every
        // lookup waits for the previous one's cache miss (measured: 4x on a
        // getType loop). Zeroing the output first breaks that chain.
        // SAFETY: two register-only instructions; `j > 0`, so `bsr` defines `k`.
        unsafe {
            std::arch::asm!(
                "xor {k:e}, {k:e}",
                "bsr {k}, {j}",
                j = in(reg) j,
                k = out(reg) k,
                options(pure, nomem, nostack)
            );
        }
        k as u32
    }
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    {
        usize::BITS - 1 - j.leading_zeros()
    }
}

impl<T: Zeroable, const B: u32> SegVec<T, B> {
    pub(crate) fn new() -> Self {
        SegVec { bases: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())), _owns: PhantomData }
    }

    /// Most elements the array can ever hold.
    pub(crate) const CAPACITY: usize = ((1 << B) << SEGMENTS) - (1 << B);

    fn layout(k: usize) -> Layout {
        Layout::array::<T>((1 << B) << k).expect("segment layout")
    }

    /// Segment `k`'s start, if it is allocated.
    #[inline]
    fn segment(&self, k: usize) -> Option<*mut T> {
        let base = self.bases.get(k)?.load(Ordering::Acquire);
        (!base.is_null()).then(|| base.wrapping_add((1 << B) << k))
    }

    /// For index `i`: `j = i + (1 << B)`, which lies in
    /// `[(1 << B) << k, (1 << B) << (k + 1))` for `i`'s segment `k`, and that
    /// segment's base, if it is allocated; element `i` is at `base + j`.
    #[inline]
    fn base_of(&self, i: usize) -> Option<(*mut T, usize, usize)> {
        let j = i + (1 << B);
        let k = (log2(j) - B) as usize;
        let base = self.bases.get(k)?.load(Ordering::Acquire);
        (!base.is_null()).then_some((base, j, k))
    }

    /// The element at `i`, or `None` past the allocated segments.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        let (base, j, _) = self.base_of(i)?;
        // SAFETY: `base + (1 << B) << k` is segment `k`'s start, a live allocation of
        // `(1 << B) << k` initialized elements freed only in `drop`, and `j` lies
        // in segment `k`'s range (`base_of`), so `base + j` is inside it.
        Some(unsafe { &*base.wrapping_add(j) })
    }

    /// Hints the CPU to fetch element `i` into cache, so that independent
    /// misses overlap instead of queueing.
    #[inline]
    pub(crate) fn prefetch(&self, i: usize) {
        if let Some(e) = self.get(i) {
            crate::prefetch(e as *const T);
        }
    }

    /// Elements `start..start + len` if they lie in one allocated segment.
    #[inline]
    pub(crate) fn try_slice(&self, start: usize, len: usize) -> Option<&[T]> {
        if len == 0 {
            return Some(&[]);
        }
        let (base, j, k) = self.base_of(start)?;
        if j + len > (1 << B) << (k + 1) {
            return None;
        }
        // SAFETY: as in `get`, `base + j` is inside segment `k`, a live allocation
        // of initialized elements, and so is `base + j + len`, checked above.
        Some(unsafe { std::slice::from_raw_parts(base.wrapping_add(j), len) })
    }

    /// Elements `start..start + len`, which must lie in one allocated segment.
    #[inline]
    pub(crate) fn slice(&self, start: usize, len: usize) -> &[T] {
        self.try_slice(start, len).expect("range in one allocated segment")
    }

    /// Makes sure elements `0..len` exist. Callers serialize growth (they hold
    /// the owning shard's write lock, or `&mut`).
    pub(crate) fn ensure(&self, len: usize) {
        if len == 0 {
            return;
        }
        assert!(len <= Self::CAPACITY, "segmented array overflow");
        let (last, _) = locate_in::<B>(len - 1);
        // Segments are made in order, so the last one present means all are.
        if self.segment(last).is_some() {
            return;
        }
        for k in 0..=last {
            if self.segment(k).is_none() {
                // SAFETY: the layout has non-zero size; zeroed memory is a valid `T` (Zeroable).
                let seg = unsafe { alloc_zeroed(Self::layout(k)) } as *mut T;
                if seg.is_null() {
                    std::alloc::handle_alloc_error(Self::layout(k));
                }
                let base = seg.wrapping_sub((1 << B) << k);
                // Null means "not allocated"; only an allocation at a tiny address could hit it.
                assert!(!base.is_null(), "segment at an address that reads as unallocated");
                self.bases[k].store(base, Ordering::Release);
            }
        }
    }

    /// Elements in the allocated segments (made in order, so a prefix).
    pub(crate) fn allocated_len(&self) -> usize {
        let made = (0..SEGMENTS).take_while(|&k| self.segment(k).is_some()).count();
        ((1 << B) << made) - (1 << B)
    }

    /// Bytes allocated (address space; untouched pages are not resident).
    pub(crate) fn allocated_bytes(&self) -> usize {
        (0..SEGMENTS).filter(|&k| self.segment(k).is_some()).map(|k| ((1 << B) << k) * std::mem::size_of::<T>()).sum()
    }
}

impl<T: Zeroable, const B: u32> Default for SegVec<T, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Zeroable, const B: u32> Drop for SegVec<T, B> {
    fn drop(&mut self) {
        for k in 0..SEGMENTS {
            if let Some(seg) = self.segment(k) {
                // SAFETY: allocated in `ensure` with this very layout, freed once;
                // `Zeroable` types need no drop of their own.
                unsafe { dealloc(seg as *mut u8, Self::layout(k)) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_matches_leading_zeros() {
        for j in (1..5000).chain([1 << 20, (1 << 20) - 1, usize::MAX >> 1, usize::MAX]) {
            assert_eq!(log2(j), usize::BITS - 1 - j.leading_zeros(), "{j}");
        }
    }

    #[test]
    fn locate_is_contiguous() {
        let mut expect = (0, 0);
        for i in 0..(BASE * 8) {
            assert_eq!(locate(i), expect, "index {i}");
            expect.1 += 1;
            if expect.1 == BASE << expect.0 {
                expect = (expect.0 + 1, 0);
            }
        }
    }

    #[test]
    fn slices_stop_at_segment_ends() {
        let v: SegVec<AtomicU64> = SegVec::new();
        assert!(v.try_slice(0, 1).is_none(), "nothing allocated yet");
        assert_eq!(v.try_slice(0, 0).map(<[_]>::len), Some(0));
        v.ensure(BASE * 3);
        for (k, start) in [(0, 0), (1, BASE)] {
            let len = BASE << k;
            let whole = v.try_slice(start, len).expect("a whole segment");
            assert_eq!(whole.as_ptr(), v.get(start).unwrap() as *const AtomicU64);
            assert_eq!(&whole[len - 1] as *const AtomicU64, v.get(start + len - 1).unwrap() as *const AtomicU64);
            assert!(v.try_slice(start + 1, len).is_none(), "one past segment {k}");
        }
        assert!(v.get(BASE * 3).is_none(), "past the allocated segments");
        assert!(v.try_slice(BASE * 3, 1).is_none());
    }

    #[test]
    fn grows_and_keeps_addresses() {
        let v: SegVec<AtomicU64> = SegVec::new();
        assert!(v.get(0).is_none());
        v.ensure(10);
        let p = v.get(5).unwrap() as *const AtomicU64;
        v.get(5).unwrap().store(7, Ordering::Relaxed);
        v.ensure(100_000);
        assert_eq!(v.get(5).unwrap() as *const AtomicU64, p);
        assert_eq!(v.get(5).unwrap().load(Ordering::Relaxed), 7);
        assert_eq!(v.get(99_999).unwrap().load(Ordering::Relaxed), 0);
    }
}
