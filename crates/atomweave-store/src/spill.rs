//! Sorting more index entries than memory should hold: sorted runs spilled
//! to anonymous temporary files, merged at the end.
//!
//! For a store that produces an index's entries in one order (atom by atom)
//! and must write them in key order: memory stays at one run whatever the
//! number of entries. Entries are pairs of `u64`, ordered as pairs; this is
//! not a general external sort.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

pub(crate) type Entry = (u64, u64);

/// Entries kept in memory before a run is sorted and spilled: 4 MiB.
const RUN: usize = 1 << 18;

/// Bytes buffered per run while merging.
const READ_BUF: usize = 1 << 16;

/// Entries pushed in any order, read back sorted.
pub(crate) struct Spill {
    dir: PathBuf,
    buf: Vec<Entry>,
    /// Spilled runs: a file (already deleted from its directory) and how
    /// many entries it holds.
    runs: Vec<(File, u64)>,
}

impl Spill {
    /// A sorter whose runs go to files in `dir` (the store's own directory:
    /// the same disk as the data, removed by the system when closed).
    pub(crate) fn new(dir: &Path) -> Spill {
        Spill { dir: dir.to_path_buf(), buf: Vec::new(), runs: Vec::new() }
    }

    /// Where the runs go.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn push(&mut self, e: Entry) -> io::Result<()> {
        if self.buf.len() == RUN {
            self.spill()?;
        }
        if self.buf.capacity() == 0 {
            // Sized once: grown by doubling, a run would take up to twice its size.
            self.buf.reserve_exact(RUN);
        }
        self.buf.push(e);
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        self.buf.sort_unstable();
        let mut file = tempfile::tempfile_in(&self.dir)?;
        let mut w = BufWriter::with_capacity(READ_BUF, &mut file);
        for &(a, b) in &self.buf {
            w.write_all(&a.to_le_bytes())?;
            w.write_all(&b.to_le_bytes())?;
        }
        w.flush()?;
        drop(w);
        file.rewind()?;
        self.runs.push((file, self.buf.len() as u64));
        self.buf.clear();
        Ok(())
    }

    /// Every entry pushed, in order.
    pub(crate) fn sorted(mut self) -> io::Result<Sorted> {
        if self.runs.is_empty() {
            self.buf.sort_unstable();
            return Ok(Sorted::Memory(self.buf.into_iter()));
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        drop(std::mem::take(&mut self.buf));
        let mut runs: Vec<Run> = self.runs.into_iter().map(|(f, left)| Run { r: BufReader::with_capacity(READ_BUF, f), left }).collect();
        let mut heap = BinaryHeap::with_capacity(runs.len());
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some(e) = run.next()? {
                heap.push(Reverse((e, i)));
            }
        }
        Ok(Sorted::Merge { runs, heap })
    }
}

pub(crate) struct Run {
    r: BufReader<File>,
    left: u64,
}

impl Run {
    fn next(&mut self) -> io::Result<Option<Entry>> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut b = [0u8; 16];
        // A run shorter than written is a failing disk: an error, not an early end.
        self.r.read_exact(&mut b)?;
        self.left -= 1;
        let (a, c) = b.split_at(8);
        Ok(Some((u64::from_le_bytes(a.try_into().expect("8 bytes")), u64::from_le_bytes(c.try_into().expect("8 bytes")))))
    }
}

/// A [`Spill`]'s entries in order: from memory when they fit one run,
/// else merged from the spilled runs.
pub(crate) enum Sorted {
    Memory(std::vec::IntoIter<Entry>),
    Merge { runs: Vec<Run>, heap: BinaryHeap<Reverse<(Entry, usize)>> },
}

impl Iterator for Sorted {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<io::Result<Entry>> {
        match self {
            Sorted::Memory(it) => it.next().map(Ok),
            Sorted::Merge { runs, heap } => {
                let Reverse((e, i)) = heap.pop()?;
                match runs[i].next() {
                    Ok(Some(next)) => heap.push(Reverse((next, i))),
                    Ok(None) => {}
                    Err(err) => return Some(Err(err)),
                }
                Some(Ok(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(entries: &[Entry]) -> Vec<Entry> {
        let d = tempfile::tempdir().unwrap();
        let mut s = Spill::new(d.path());
        for &e in entries {
            s.push(e).unwrap();
        }
        let spilled = s.runs.len();
        let out: Vec<Entry> = s.sorted().unwrap().map(Result::unwrap).collect();
        assert_eq!(spilled, entries.len().saturating_sub(1) / RUN, "runs spilled for {} entries", entries.len());
        out
    }

    /// Entries in a scrambled order, with repeats: sorted the same whether
    /// they fit one run or were spilled to several.
    #[test]
    fn entries_come_back_sorted_from_memory_and_from_spilled_runs() {
        for n in [0, 1, 1000, RUN, RUN + 1, 3 * RUN + 7] {
            let entries: Vec<Entry> = (0..n as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 1000, i.wrapping_mul(31) % 17)).collect();
            let mut want = entries.clone();
            want.sort_unstable();
            assert_eq!(sorted(&entries), want, "{n} entries");
        }
    }
}
