//! Access to shards: read and write guards on one shard, write locks on a
//! set of shards, and exclusive access to all of them, behind one trait
//! ([`ShardAccess`]) that the add and remove paths take.
//!
//! **Invariant:** a set of shard locks is taken in increasing shard number,
//! and released on drop, unwinding included.

use crossbeam_utils::CachePadded;

use crate::lock::{ReadGuard, ShardLock, WriteGuard};

use super::{Records, Shard, ShardMask, Store};

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

#[inline]
pub(super) fn for_each_bit(mut bits: u32, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

impl Store {
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
}
