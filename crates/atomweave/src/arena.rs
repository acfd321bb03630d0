//! Append-only arenas for node names and outgoing sets.
//!
//! Each range is written once, under the owning shard's write lock, before
//! the record that points at it is published, and is never moved, changed or
//! reused afterwards; so readers take slices of it without any lock, and a
//! stale handle still reads valid (old) memory. The price, as for slot
//! numbers: space of extracted atoms is not reused while the store lives.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

use crate::segvec::{fit, SegVec, Zeroable};
use crate::Handle;

/// An element type and the atomic cell it is written through.
///
/// # Safety
/// `Self` must have the size, alignment and bit validity of `Plain`, so that
/// a published range of cells can be read as a slice of `Plain`.
pub(crate) unsafe trait Cell: Zeroable + Sync {
    type Plain: Copy;
    fn set(&self, v: Self::Plain);
}

// SAFETY: AtomicU8 has the layout of u8; zero is valid and needs no drop.
unsafe impl Zeroable for AtomicU8 {}
// SAFETY: as above.
unsafe impl Cell for AtomicU8 {
    type Plain = u8;
    fn set(&self, v: u8) {
        self.store(v, Ordering::Relaxed);
    }
}

// SAFETY: AtomicU32 has the layout of u32, and Handle is a transparent u32.
unsafe impl Zeroable for AtomicU32 {}
// SAFETY: as above.
unsafe impl Cell for AtomicU32 {
    type Plain = Handle;
    fn set(&self, v: Handle) {
        self.store(v.0, Ordering::Relaxed);
    }
}

/// Room in an arena that one writer took ahead and has not yet filled.
#[derive(Default)]
pub(crate) struct Chunk {
    at: usize,
    end: usize,
}

pub(crate) struct Arena<C: Cell> {
    cells: SegVec<C>,
}

impl<C: Cell> Arena<C> {
    pub(crate) fn new() -> Self {
        Arena { cells: SegVec::new() }
    }

    /// Appends `data` in `chunk` if it fits, or else in a new chunk of at
    /// least `size` cells taken at `*end` (the arena's fill mark, which the
    /// caller keeps under its lock), and says where: one segment holds it,
    /// so it reads back as one slice. `None` past `u32::MAX` elements.
    #[inline]
    pub(crate) fn push_in(&self, chunk: &mut Chunk, end: &mut usize, size: usize, data: &[C::Plain]) -> Option<u32> {
        if chunk.at + data.len() <= chunk.end {
            let start = chunk.at;
            Self::fill(self.cells.slice(start, data.len()), data);
            chunk.at = start + data.len();
            return Some(start as u32);
        }
        self.new_chunk(chunk, end, size, data)
    }

    /// `push_in` when `data` does not fit in the chunk: a new chunk at the
    /// arena's end, or at the start of the next segment, allocated here.
    #[cold]
    #[inline(never)]
    fn new_chunk(&self, chunk: &mut Chunk, end: &mut usize, size: usize, data: &[C::Plain]) -> Option<u32> {
        let len = data.len().max(size);
        let start = fit(*end, len);
        // Checked before growing, so a refused push allocates nothing.
        u32::try_from(start + len).ok()?;
        self.cells.ensure(start + len);
        Self::fill(self.cells.slice(start, data.len()), data);
        *end = start + len;
        *chunk = Chunk { at: start + data.len(), end: start + len };
        Some(start as u32)
    }

    #[inline]
    fn fill(cells: &[C], data: &[C::Plain]) {
        for (cell, &v) in cells.iter().zip(data) {
            cell.set(v);
        }
    }

    /// The published range `start..start + len`.
    #[inline]
    pub(crate) fn get(&self, start: usize, len: usize) -> &[C::Plain] {
        let cells = self.cells.slice(start, len);
        // SAFETY: `Cell` guarantees the layout; a published range is never
        // written again, so reading it as plain data races with nothing.
        unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const C::Plain, cells.len()) }
    }

    /// Starts fetching the element at `start`.
    #[inline]
    pub(crate) fn prefetch(&self, start: usize) {
        self.cells.prefetch(start);
    }

    /// Bytes allocated (address space; untouched pages are not resident).
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.cells.allocated_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segvec::segment_of;

    #[test]
    fn ranges_never_straddle_segments_and_read_back() {
        let a: Arena<AtomicU32> = Arena::new();
        let mut end = 0;
        let mut placed = Vec::new();
        // Two writers taking chunks of 64 in turn, and one taking none.
        let mut chunks = [Chunk::default(), Chunk::default()];
        for (i, n) in [3usize, 1000, 30, 2000, 0, 5000, 7, 40, 40, 20, 64].into_iter().enumerate() {
            let data: Vec<Handle> = (0..n as u32).map(Handle).collect();
            let start = match i % 3 {
                2 => a.push_in(&mut Chunk::default(), &mut end, 0, &data),
                w => a.push_in(&mut chunks[w], &mut end, 64, &data),
            }
            .unwrap() as usize;
            let (seg_start, seg_len) = segment_of(start);
            assert!(n == 0 || start + n <= seg_start + seg_len);
            assert!(placed.iter().all(|&(s, ref d): &(usize, Vec<Handle>)| start + n <= s || s + d.len() <= start), "{start}+{n} overlaps");
            placed.push((start, data));
        }
        for (start, data) in placed {
            assert_eq!(a.get(start, data.len()), &data[..]);
        }
        let b: Arena<AtomicU8> = Arena::new();
        let mut end = 0;
        let s = b.push_in(&mut Chunk::default(), &mut end, 0, "héllo".as_bytes()).unwrap() as usize;
        assert_eq!(b.get(s, 6), "héllo".as_bytes());
    }
}
