//! A growable array of `AtomicU64` whose elements never move, so readers can
//! index it without a lock while one writer (holding the owner's lock) grows it.
//!
//! Segment `k` holds `BASE << k` elements; an index maps to its segment with one
//! `leading_zeros`. Segments are zero-filled by the allocator (`calloc`), so
//! untouched memory costs no resident pages.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

const BASE_BITS: u32 = 10;
const BASE: usize = 1 << BASE_BITS;
const SEGMENTS: usize = 24;

pub(crate) struct SegVec {
    segments: [AtomicPtr<AtomicU64>; SEGMENTS],
}

#[inline]
fn locate(i: usize) -> (usize, usize) {
    let j = i + BASE;
    let k = (usize::BITS - 1 - j.leading_zeros()) - BASE_BITS;
    (k as usize, j - (BASE << k))
}

fn layout(k: usize) -> Layout {
    Layout::array::<AtomicU64>(BASE << k).expect("segment layout")
}

impl SegVec {
    pub(crate) fn new() -> Self {
        SegVec { segments: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())) }
    }

    /// Most elements the array can ever hold.
    pub(crate) const CAPACITY: usize = (BASE << SEGMENTS) - BASE;

    /// The element at `i`, or `None` past the allocated segments.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&AtomicU64> {
        let (k, off) = locate(i);
        let seg = self.segments.get(k)?.load(Ordering::Acquire);
        if seg.is_null() {
            return None;
        }
        // SAFETY: `seg` points to a live allocation of `BASE << k` elements that is
        // only freed in `drop`, and `off < BASE << k` by construction of `locate`.
        Some(unsafe { &*seg.add(off) })
    }

    /// Makes sure elements `0..len` exist. Callers serialize growth (they hold
    /// the owning shard's write lock, or `&mut`).
    pub(crate) fn ensure(&self, len: usize) {
        if len == 0 {
            return;
        }
        assert!(len <= Self::CAPACITY, "segmented array overflow");
        let (last, _) = locate(len - 1);
        for k in 0..=last {
            if self.segments[k].load(Ordering::Acquire).is_null() {
                // SAFETY: the layout has non-zero size; zeroed memory is a valid AtomicU64 array.
                let seg = unsafe { alloc_zeroed(layout(k)) } as *mut AtomicU64;
                if seg.is_null() {
                    std::alloc::handle_alloc_error(layout(k));
                }
                self.segments[k].store(seg, Ordering::Release);
            }
        }
    }

    /// Zeroes elements `0..len`; lock-free readers see each one go to zero.
    pub(crate) fn zero(&self, len: usize) {
        for i in 0..len {
            if let Some(w) = self.get(i) {
                w.store(0, Ordering::Release);
            }
        }
    }

    /// Bytes allocated.
    pub(crate) fn allocated_bytes(&self) -> usize {
        (0..SEGMENTS)
            .filter(|&k| !self.segments[k].load(Ordering::Relaxed).is_null())
            .map(|k| (BASE << k) * 8)
            .sum()
    }
}

impl Drop for SegVec {
    fn drop(&mut self) {
        for (k, seg) in self.segments.iter_mut().enumerate() {
            let p = *seg.get_mut();
            if !p.is_null() {
                // SAFETY: allocated in `ensure` with this very layout, freed once.
                unsafe { dealloc(p as *mut u8, layout(k)) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn grows_and_keeps_addresses() {
        let v = SegVec::new();
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
