//! The shards' reader-writer lock.
//!
//! A shard is write-locked for a few hundred nanoseconds per add, by
//! threads that mostly want different shards. Two costs of a general lock
//! matter at that scale, and this one avoids both:
//! - **Releasing with a locked instruction.** On x86 a locked instruction
//!   waits until every earlier store has left the store buffer; after an
//!   add those are stores to lines other cores may hold (slots, arena
//!   ends, a dedupe entry), so the release stalled on them (perf: two
//!   thirds of `add_node`'s own samples, with two threads adding). Here a
//!   writer releases with a plain store: while it holds the lock, no one
//!   else writes the lock word, so there is nothing to lose.
//! - **Sleeping in the kernel.** A general lock parks a waiter after about
//!   a microsecond (a futex wait and a wake-up, microseconds each). Here a
//!   waiter spins on reads of the word, then yields, then sleeps in steps
//!   that grow to a millisecond: holds are short, and the long ones (a
//!   table growing, a whole-space read) are long enough that waking late
//!   costs little. The price of never parking: no one wakes a sleeper, it
//!   wakes on its own.
//!
//! Readers are recursive (a thread holding a read lock can take another
//! while a writer waits) and are not held back for waiting writers, so a
//! steady stream of readers can delay a writer; shard reads under the lock
//! are rare (values, count truth values, whole-space views).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use lock_api::{GuardSend, RawRwLock, RawRwLockRecursive};

const WRITER: u32 = 1;
const READER: u32 = 2;

/// The raw lock; use it as [`ShardLock`].
pub(crate) struct RawShardLock {
    /// `WRITER`, or the number of readers times `READER`.
    word: AtomicU32,
}

/// A value behind a [`RawShardLock`].
pub(crate) type ShardLock<T> = lock_api::RwLock<RawShardLock, T>;
pub(crate) type ReadGuard<'a, T> = lock_api::RwLockReadGuard<'a, RawShardLock, T>;
pub(crate) type WriteGuard<'a, T> = lock_api::RwLockWriteGuard<'a, RawShardLock, T>;

/// How a waiter waits: spins first, then yields, then sleeps.
struct Backoff(u32);

impl Backoff {
    const SPINS: u32 = 1024;
    const YIELDS: u32 = Self::SPINS + 64;

    fn wait(&mut self) {
        self.0 = self.0.saturating_add(1);
        if self.0 <= Self::SPINS {
            std::hint::spin_loop();
        } else if self.0 <= Self::YIELDS {
            std::thread::yield_now();
        } else {
            let step = (self.0 - Self::YIELDS).min(10);
            std::thread::sleep(Duration::from_micros(1 << step));
        }
    }
}

impl RawShardLock {
    #[cold]
    #[inline(never)]
    fn lock_exclusive_slow(&self) {
        let mut backoff = Backoff(0);
        loop {
            backoff.wait();
            // Read until it looks free: a failed exchange would take the
            // line from the holder.
            if self.word.load(Ordering::Relaxed) == 0 && self.try_lock_exclusive() {
                return;
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn lock_shared_slow(&self) {
        let mut backoff = Backoff(0);
        while !self.try_lock_shared() {
            backoff.wait();
        }
    }
}

// SAFETY: the word is `WRITER` exactly while one writer holds the lock and
// `n * READER` while n readers do; every acquisition is an Acquire exchange
// from a state that allows it and every release a Release write, so a holder
// sees everything its predecessors wrote under the lock.
unsafe impl RawRwLock for RawShardLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawShardLock { word: AtomicU32::new(0) };
    type GuardMarker = GuardSend;

    #[inline]
    fn lock_shared(&self) {
        if !self.try_lock_shared() {
            self.lock_shared_slow();
        }
    }

    #[inline]
    fn try_lock_shared(&self) -> bool {
        let mut w = self.word.load(Ordering::Relaxed);
        // Never written while a writer holds the lock: see `unlock_exclusive`.
        while w & WRITER == 0 {
            match self.word.compare_exchange_weak(w, w + READER, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
        false
    }

    #[inline]
    unsafe fn unlock_shared(&self) {
        self.word.fetch_sub(READER, Ordering::Release);
    }

    #[inline]
    fn lock_exclusive(&self) {
        if !self.try_lock_exclusive() {
            self.lock_exclusive_slow();
        }
    }

    #[inline]
    fn try_lock_exclusive(&self) -> bool {
        self.word.compare_exchange(0, WRITER, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    #[inline]
    unsafe fn unlock_exclusive(&self) {
        // Readers and writers only ever change the word from states without
        // `WRITER`, so while it is held it stays `WRITER`: a plain store
        // releases it, without waiting for the store buffer to drain.
        self.word.store(0, Ordering::Release);
    }

    #[inline]
    fn is_locked(&self) -> bool {
        self.word.load(Ordering::Relaxed) != 0
    }

    #[inline]
    fn is_locked_exclusive(&self) -> bool {
        self.word.load(Ordering::Relaxed) & WRITER != 0
    }
}

// SAFETY: readers never wait for waiting writers, so a shared lock can
// always be taken again by a thread that holds one.
unsafe impl RawRwLockRecursive for RawShardLock {
    #[inline]
    fn lock_shared_recursive(&self) {
        self.lock_shared();
    }

    #[inline]
    fn try_lock_shared_recursive(&self) -> bool {
        self.try_lock_shared()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn writers_exclude_each_other_and_readers() {
        let lock = Arc::new(ShardLock::new((0u64, 0u64)));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for i in 0..20_000u64 {
                        if (i + t) % 4 == 0 {
                            let g = lock.read_recursive();
                            // Both halves are written together: a reader
                            // that got in beside a writer could see them apart.
                            assert_eq!(g.0, g.1);
                            let again = lock.read_recursive();
                            assert_eq!(again.0, g.0);
                        } else {
                            let mut g = lock.write();
                            g.0 += 1;
                            std::hint::black_box(&mut *g);
                            g.1 += 1;
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let g = lock.read();
        assert_eq!(g.0, 4 * 15_000);
        assert_eq!(g.1, g.0);
    }

    #[test]
    fn try_lock_respects_holders() {
        let lock = ShardLock::new(());
        let r = lock.read();
        assert!(lock.try_write().is_none());
        assert!(lock.try_read().is_some());
        drop(r);
        let w = lock.write();
        assert!(lock.try_read().is_none());
        assert!(lock.try_write().is_none());
        assert!(lock.is_locked());
        drop(w);
        assert!(!lock.is_locked());
        assert!(lock.try_write().is_some());
    }

    #[test]
    fn a_waiting_writer_gets_in_after_a_long_read() {
        let lock = Arc::new(ShardLock::new(0u32));
        let r = lock.read();
        let writer = {
            let lock = lock.clone();
            std::thread::spawn(move || *lock.write() += 1)
        };
        // Long enough for the writer to reach its sleeping steps.
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(*r, 0);
        drop(r);
        writer.join().unwrap();
        assert_eq!(*lock.read(), 1);
    }
}
