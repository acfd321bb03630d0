//! Content-to-slot tables that readers probe without a lock.
//!
//! Open addressing with linear probing over `AtomicU32` entries: 0 is empty,
//! 1 a removed entry, anything else a slot number plus 2 in the low 27 bits
//! (slots stay below `LOCAL_LIMIT - BLOCK`) and 5 bits of the hash above
//! them, which spare all but 1 in 32 false comparisons: each one costs the
//! caller a record and an arena read, the bulk of a missed lookup. Hashes
//! are 32 bits (the low half of a content hash), which the owner keeps per
//! slot so that growth and removal never hash content again: the low bits
//! place an entry, the top five tag it.
//! Inserts and removals happen under the owning shard's write lock; so does
//! growth for an `AtomTable`, while a space builds the grown table without
//! the lock and replays what changed meanwhile under it (see [`Growth`]).
//! Growth publishes a new table that owns the old one, which stays mapped
//! until the dedupe is dropped (or [`Dedupe::free_retired`] runs with
//! exclusive access), because a lock-free reader may still be probing it.
//! On Linux its pages go back to the system at once
//! (`madvise(MADV_DONTNEED)`): a reader still probing it reads zeroes, that
//! is empty entries, and a lookup that misses confirms the miss against the
//! current table before believing it.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

const EMPTY: u32 = 0;
const REMOVED: u32 = 1;
const SLOT_BITS: u32 = 27;
const SLOT_MASK: u32 = (1 << SLOT_BITS) - 1;
/// The highest slot number an entry can hold.
pub(crate) const MAX_SLOT: u32 = SLOT_MASK - 2;

/// Fills, as (numerator, denominator) of a table's entries: past `GROW_AT`
/// the table grows (outside the lock, for a space); past `REBUILD_AT` a
/// writer rebuilds it under the lock rather than wait for that growth. A
/// new table is filled to `NEW_AT` at most (a grown one, to three
/// eighths), so at least as many inserts again fit before it grows. Three
/// quarters, not a half: the tables were a third of a big space's memory
/// (a 100 M-atom space's shards, 75% full, stay in tables half the size),
/// and at three quarters full a missed probe walks 8.5 entries on average
/// (2.5 at a half), still within a cache line's 16 or the next.
const GROW_AT: (usize, usize) = (3, 4);
const REBUILD_AT: (usize, usize) = (7, 8);
const NEW_AT: (usize, usize) = (1, 2);

/// Is `filled` past the fill `at` of a table of `capacity` entries?
#[inline]
fn past(filled: usize, capacity: usize, at: (usize, usize)) -> bool {
    filled * at.1 > capacity * at.0
}

/// Entries of a new table for `live` entries: filled to at most `NEW_AT`.
fn capacity_for(live: u32) -> usize {
    live as usize * NEW_AT.1 / NEW_AT.0 + 2
}

struct Table {
    mask: usize,
    entries: Box<[AtomicU32]>,
    /// The table this one replaced (null if none), kept for readers that
    /// may still probe it; from `Box::into_raw`, so it stays where readers'
    /// references point. Raw, not a `Box`: a box asserts it is the only way
    /// to its table, which readers still holding references contradict.
    prev: *mut Table,
}

/// Frees the chain of tables starting at `t`, one at a time: a space
/// cleared many times holds a long chain, which dropping recursively could
/// overflow the stack with.
///
/// # Safety
/// `t` is null or from `Box::into_raw`, the chain is owned by the caller,
/// and no one can reach it any more.
unsafe fn free_chain(mut t: *mut Table) {
    while !t.is_null() {
        // SAFETY: the caller's conditions, link by link.
        let mut table = unsafe { Box::from_raw(t) };
        t = std::mem::replace(&mut table.prev, std::ptr::null_mut());
    }
}

impl Table {
    fn new(capacity: usize) -> Box<Table> {
        let capacity = capacity.next_power_of_two().max(64);
        let entries: Box<[AtomicU32]> = (0..capacity).map(|_| AtomicU32::new(EMPTY)).collect();
        crate::pages::populate(&entries);
        Box::new(Table { mask: capacity - 1, entries, prev: std::ptr::null_mut() })
    }

    /// Enters `slot` under `hash` in the first empty entry of its probe.
    /// The table is not yet published.
    fn enter(&self, slot: u32, hash: u32) {
        let mut i = hash as usize & self.mask;
        while self.entries[i].load(Ordering::Relaxed) != EMPTY {
            i = (i + 1) & self.mask;
        }
        self.entries[i].store(encode(hash, slot), Ordering::Relaxed);
    }

    /// Enters every (slot, hash) of `live`; how many there were.
    fn enter_all(&self, live: impl Iterator<Item = (u32, u32)>) -> u32 {
        let mut n = 0;
        for (slot, hash) in live {
            self.enter(slot, hash);
            n += 1;
        }
        n
    }

    /// The entry holding `slot` under `hash`, if any.
    fn position(&self, hash: u32, slot: u32) -> Option<usize> {
        let want = encode(hash, slot);
        let mut i = hash as usize & self.mask;
        loop {
            match self.entries[i].load(Ordering::Relaxed) {
                EMPTY => return None,
                e if e == want => return Some(i),
                _ => i = (i + 1) & self.mask,
            }
        }
    }

    /// The tables this one replaced, newest first.
    fn retired(&self) -> impl Iterator<Item = &Table> {
        // SAFETY: a retired table lives as long as the table that replaced it.
        std::iter::successors(unsafe { self.prev.as_ref() }, |t| unsafe { t.prev.as_ref() })
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: a table owns the chain it replaced, and is being dropped.
        unsafe { free_chain(self.prev) };
    }
}

#[inline]
fn tag(hash: u32) -> u32 {
    hash & !SLOT_MASK
}

#[inline]
fn encode(hash: u32, slot: u32) -> u32 {
    debug_assert!(slot <= MAX_SLOT);
    tag(hash) | (slot + 2)
}

/// The lock-free half: the current table.
pub(crate) struct Dedupe {
    current: AtomicPtr<Table>,
    /// A writer found the table past `GROW_AT` and left its growth to be done
    /// after it unlocks (`find_or_vacancy` with `defer`): see [`Growth`].
    wanted: AtomicBool,
}

/// An entry `Dedupe::find_or_vacancy` found free: an empty one, or a
/// removed one met on the way, reused first.
#[must_use]
pub(crate) struct Vacancy {
    index: usize,
    empty: bool,
}

/// The locked half: counts, small enough to share a cache line with the
/// shard's lock.
#[derive(Default)]
pub(crate) struct DedupeBook {
    live: u32,
    /// Live entries plus removed markers: what fills the table.
    used: u32,
    /// The growth under way outside the lock, if any.
    growth: Option<Box<Growth>>,
}

/// A growth under way outside the shard's lock. Growth copies every live
/// entry into a new table, some 9 ms per million entries here; under the
/// lock, every other thread adding to the shard (and with 32 shards, that is
/// within microseconds) waited for it, so two adding threads spent much of
/// their time one behind the other. Instead, a writer that finds the table
/// past `GROW_AT` goes on filling it (up to seven eighths) and asks for growth;
/// after it unlocks, the grower ([`Dedupe::begin_growth`]) lists the slot
/// blocks under the lock, builds the new table from the records without it
/// ([`Dedupe::build`]), and locks again to replay what changed meanwhile,
/// logged here, and publish ([`Dedupe::finish_growth`]).
pub(crate) struct Growth {
    /// Entries filled (slot, hash) and removed (slot | `LOG_REMOVED`, hash)
    /// since the growth began, in order.
    log: Vec<(u32, u32)>,
}

const LOG_REMOVED: u32 = 1 << 31;

/// A growth begun ([`Dedupe::begin_growth`]): the table it replaces, and
/// the new table's capacity.
pub(crate) struct Ticket {
    /// The current table when the growth began. A rebuild or a clear
    /// publishes another, which overtakes the growth; a retired table is
    /// not freed while the dedupe is shared, so its address is not reused.
    base: *const Table,
    capacity: usize,
}

/// A table [`Dedupe::build`] made outside the lock, for the growth of `base`.
pub(crate) struct Built {
    base: *const Table,
    table: Box<Table>,
    /// Entries it holds.
    used: u32,
}

impl Dedupe {
    pub(crate) fn new() -> Self {
        Dedupe { current: AtomicPtr::new(Box::into_raw(Table::new(64))), wanted: AtomicBool::new(false) }
    }

    #[inline]
    fn table(&self) -> &Table {
        // SAFETY: `current` always points to a live table: tables are
        // replaced only by publishing a new one, and old ones are freed only
        // in `drop` or `free_retired`, which need exclusive access.
        unsafe { &*self.current.load(Ordering::Acquire) }
    }

    /// Starts fetching the first entry a probe for `hash` reads.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u32) {
        let t = self.table();
        crate::prefetch(&t.entries[hash as usize & t.mask] as *const AtomicU32);
    }

    /// Hands the slot of the first entry a probe for `hash` would compare
    /// to `fetch`, if its tag matches: for prefetching the candidate's
    /// record once [`prefetch`](Self::prefetch) has brought the entry in.
    #[inline]
    pub(crate) fn prefetch_candidate(&self, hash: u32, fetch: impl FnOnce(u32)) {
        let t = self.table();
        let e = t.entries[hash as usize & t.mask].load(Ordering::Relaxed);
        if e > REMOVED && e & !SLOT_MASK == tag(hash) {
            fetch((e & SLOT_MASK) - 2);
        }
    }

    /// [`prefetch_candidate`](Self::prefetch_candidate), the candidate
    /// being the first tag match in the cache line the probe starts in:
    /// at up to three quarters full, many of the atoms found lie past the first
    /// entry. For nodes, which a load finds again often; most links added
    /// are new, and the scan costs them more than it saves.
    #[inline]
    pub(crate) fn prefetch_candidate_in_line(&self, hash: u32, fetch: impl FnOnce(u32)) {
        let t = self.table();
        let want = tag(hash);
        let home = hash as usize & t.mask;
        // Not past the table's end: the probe goes on at its start, another line.
        let in_line = ((64 - (t.entries[home].as_ptr() as usize & 63)) / 4).min(t.entries.len() - home);
        for entry in &t.entries[home..home + in_line] {
            let e = entry.load(Ordering::Relaxed);
            if e == EMPTY {
                return;
            }
            if e != REMOVED && e & !SLOT_MASK == want {
                fetch((e & SLOT_MASK) - 2);
                return;
            }
        }
    }

    /// The slot whose content has `hash` and satisfies `eq`. Lock-free.
    #[inline]
    pub(crate) fn find(&self, hash: u32, mut eq: impl FnMut(u32) -> bool) -> Option<u32> {
        loop {
            let p = self.current.load(Ordering::Acquire);
            // SAFETY: see `table`.
            let t = unsafe { &*p };
            let want = tag(hash);
            let mut i = hash as usize & t.mask;
            loop {
                let e = t.entries[i].load(Ordering::Acquire);
                if e == EMPTY {
                    break;
                }
                if e != REMOVED && e & !SLOT_MASK == want {
                    let slot = (e & SLOT_MASK) - 2;
                    if eq(slot) {
                        return Some(slot);
                    }
                }
                i = (i + 1) & t.mask;
            }
            // A table replaced meanwhile may have read as empty: ask the new one.
            if self.current.load(Ordering::Acquire) == p {
                return None;
            }
        }
    }

    /// For a writer about to add content with `hash`: the slot of equal
    /// content (`eq`), or else the entry where `fill` will put the new one.
    /// The caller holds the shard's write lock until it fills the vacancy
    /// or drops it, so the table stays as probed. Room is made first: past
    /// [`GROW_AT`] the table is rebuilt from `live()`, every slot in the
    /// table with its hash, as the owner keeps them. Each entry a probe
    /// meets whose tag matches by chance costs two dependent cache misses
    /// (record, content): 1 in 32. One probe serves both the lookup and the
    /// insert. With `defer`, the caller grows the table after it unlocks
    /// when [`growth_wanted`](Self::growth_wanted) says so, and until then
    /// the table fills on, up to [`REBUILD_AT`] (see [`Growth`]).
    #[inline]
    pub(crate) fn find_or_vacancy<L: Iterator<Item = (u32, u32)>>(
        &self,
        book: &mut DedupeBook,
        hash: u32,
        mut eq: impl FnMut(u32) -> bool,
        live: impl FnOnce() -> L,
        defer: bool,
    ) -> Result<u32, Vacancy> {
        let (filled, capacity) = (book.used as usize + 1, self.table().mask + 1);
        if past(filled, capacity, GROW_AT) {
            match (book.growth.is_some(), defer) {
                _ if past(filled, capacity, REBUILD_AT) => self.rebuild(book, live()),
                // The growth under way makes room.
                (true, _) => {}
                (false, true) => self.wanted.store(true, Ordering::Relaxed),
                (false, false) => self.rebuild(book, live()),
            }
        }
        let t = self.table();
        let want = tag(hash);
        let mut removed = None;
        let mut i = hash as usize & t.mask;
        loop {
            let e = t.entries[i].load(Ordering::Relaxed);
            if e == EMPTY {
                return Err(removed.unwrap_or(Vacancy { index: i, empty: true }));
            }
            if e == REMOVED {
                removed.get_or_insert(Vacancy { index: i, empty: false });
            } else if e & !SLOT_MASK == want {
                let slot = (e & SLOT_MASK) - 2;
                if eq(slot) {
                    return Ok(slot);
                }
            }
            i = (i + 1) & t.mask;
        }
    }

    /// Enters `slot` under `hash` at the entry `find_or_vacancy` gave, in the
    /// same hold of the write lock.
    #[inline]
    pub(crate) fn fill(&self, book: &mut DedupeBook, vacancy: Vacancy, hash: u32, slot: u32) {
        let entry = &self.table().entries[vacancy.index];
        debug_assert!(entry.load(Ordering::Relaxed) <= REMOVED, "a vacancy filled after the table changed");
        entry.store(encode(hash, slot), Ordering::Release);
        book.used += u32::from(vacancy.empty);
        book.live += 1;
        if let Some(g) = &mut book.growth {
            g.log.push((slot, hash));
        }
    }

    /// Removes `slot`, stored under `hash`. The caller holds the shard's write lock.
    pub(crate) fn remove(&self, book: &mut DedupeBook, hash: u32, slot: u32) {
        let t = self.table();
        let want = encode(hash, slot);
        let mut i = hash as usize & t.mask;
        loop {
            let e = t.entries[i].load(Ordering::Relaxed);
            assert_ne!(e, EMPTY, "slot {slot} is not in its dedupe table");
            if e == want {
                // A marker, not empty: probes for later entries must go on past it.
                t.entries[i].store(REMOVED, Ordering::Release);
                book.live -= 1;
                if let Some(g) = &mut book.growth {
                    g.log.push((slot | LOG_REMOVED, hash));
                }
                return;
            }
            i = (i + 1) & t.mask;
        }
    }

    /// Publishes a fresh table holding the live entries, at most
    /// [`NEW_AT`] full, so that inserts fit before the next rebuild
    /// (inserts and removals in turn at a steady count fill it with removed
    /// markers; a table only just under [`GROW_AT`] would rebuild each
    /// time). `live` gives the slots and their hashes in the owner's
    /// order (slot order: its records and hashes read in sequence), not the
    /// old table's, whose slots are in no order: reading each one's hash
    /// was a cache miss. A growth under way is overtaken.
    #[cold]
    #[inline(never)]
    fn rebuild(&self, book: &mut DedupeBook, live: impl Iterator<Item = (u32, u32)>) {
        let t = Table::new(capacity_for(book.live));
        let moved = t.enter_all(live);
        assert_eq!(moved, book.live, "a dedupe table's owner listed other slots than the table holds");
        book.used = book.live;
        book.growth = None;
        self.wanted.store(false, Ordering::Relaxed);
        self.publish(t);
    }

    /// Did a writer leave this table's growth to be done outside the lock?
    /// Lock-free.
    #[inline]
    pub(crate) fn growth_wanted(&self) -> bool {
        self.wanted.load(Ordering::Relaxed)
    }

    /// Starts the growth a writer asked for, unless another thread has, or
    /// a rebuild made room meanwhile, for [`build`](Self::build). The
    /// caller holds the write lock, and lists the owner's slot blocks
    /// before it unlocks.
    pub(crate) fn begin_growth(&self, book: &mut DedupeBook) -> Option<Ticket> {
        if !self.wanted.swap(false, Ordering::Relaxed) || book.growth.is_some() || !past(book.used as usize + 1, self.table().mask + 1, GROW_AT) {
            return None;
        }
        book.growth = Some(Box::new(Growth { log: Vec::new() }));
        Some(Ticket { base: self.table(), capacity: capacity_for(book.live) })
    }

    /// Builds the table for a growth, without the lock, from `live`: the
    /// live slots of the blocks the owner had when the growth began, read
    /// lock-free. It may miss a slot filled since, or list one removed
    /// since; the log in the book has both, and
    /// [`finish_growth`](Self::finish_growth) replays it.
    pub(crate) fn build(ticket: Ticket, live: impl Iterator<Item = (u32, u32)>) -> Built {
        let table = Table::new(ticket.capacity);
        let used = table.enter_all(live);
        Built { base: ticket.base, table, used }
    }

    /// Replays what changed since the growth began and publishes the table,
    /// unless a rebuild or a clear overtook the growth (then the table is
    /// dropped: no reader has seen it). The caller holds the write lock.
    pub(crate) fn finish_growth(&self, book: &mut DedupeBook, built: Built) {
        let Built { base, table: t, mut used } = built;
        if !std::ptr::eq(base, self.table()) {
            return;
        }
        let growth = book.growth.take().expect("a growth under way on the table it began on");
        // Each add in the log may take an entry, and one removed again
        // leaves a marker: writers that ran far ahead of a slow build (the
        // same slot added and removed in turn reuses one marker of the
        // current table, but takes a new entry here each time) could fill
        // the table, and a probe of a full table never ends. Then the
        // current table stays, and the next writer grows it again.
        let adds = growth.log.iter().filter(|(slot, _)| slot & LOG_REMOVED == 0).count();
        if past(used as usize + adds, t.mask + 1, REBUILD_AT) {
            self.wanted.store(true, Ordering::Relaxed);
            return;
        }
        for (slot, hash) in growth.log {
            let found = t.position(hash, slot & !LOG_REMOVED);
            match (slot & LOG_REMOVED != 0, found) {
                (true, Some(i)) => t.entries[i].store(REMOVED, Ordering::Relaxed),
                (false, None) => {
                    t.enter(slot, hash);
                    used += 1;
                }
                // Removed before the build read it, or filled before.
                _ => {}
            }
        }
        debug_assert_eq!(t.entries.iter().filter(|e| e.load(Ordering::Relaxed) > REMOVED).count(), book.live as usize);
        book.used = used;
        self.publish(t);
    }

    /// Makes `t` the current table, owning the old one. The caller holds
    /// the write lock.
    fn publish(&self, mut t: Box<Table>) {
        // The old table lives on, owned by `t`, for readers that may still
        // probe it; it is freed only with exclusive access.
        let old = self.current.load(Ordering::Relaxed);
        t.prev = old;
        self.current.store(Box::into_raw(t), Ordering::Release);
        // After the new table is current: a reader that misses in the
        // zeroed old one confirms the miss against the new one.
        // SAFETY: see `table`; `t` owns the old table now.
        crate::pages::release(unsafe { &(*old).entries });
    }

    /// Empties the table (the caller holds the write lock; readers may still
    /// probe the old table, so it is retired, not freed).
    pub(crate) fn clear(&self, book: &mut DedupeBook) {
        *book = DedupeBook::default();
        self.wanted.store(false, Ordering::Relaxed);
        self.publish(Table::new(64));
    }

    /// Frees the tables growth and `clear` replaced. Needs exclusive access:
    /// no reader may be probing them.
    #[inline]
    pub(crate) fn free_retired(&mut self) {
        // SAFETY: `current` points to a live table (see `table`), which owns
        // the chain; `&mut self` excludes readers.
        let current = unsafe { &mut **self.current.get_mut() };
        if !current.prev.is_null() {
            // SAFETY: as above.
            unsafe { free_chain(std::mem::replace(&mut current.prev, std::ptr::null_mut())) };
        }
    }

    /// Bytes allocated by the current table and the retired ones.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let t = self.table();
        std::iter::once(t).chain(t.retired()).map(|r| (r.mask + 1) * 4).sum()
    }
}

impl Drop for Dedupe {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` and is freed once.
        drop(unsafe { Box::from_raw(*self.current.get_mut()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `slot` (hash `h(slot)`) beside the slots of `live`, and to them,
    /// as an `AtomTable` does.
    fn insert(d: &Dedupe, book: &mut DedupeBook, live: &mut Vec<u32>, slot: u32) {
        add(d, book, live, slot, false);
    }

    /// Adds `slot` with `defer`, as a space's writer does.
    fn insert_deferred(d: &Dedupe, book: &mut DedupeBook, live: &mut Vec<u32>, slot: u32) {
        add(d, book, live, slot, true);
    }

    fn add(d: &Dedupe, book: &mut DedupeBook, live: &mut Vec<u32>, slot: u32, defer: bool) {
        let v = d.find_or_vacancy(book, h(slot), |_| false, || live.iter().map(|&s| (s, h(s))), defer).expect_err("nothing is equal");
        d.fill(book, v, h(slot), slot);
        live.push(slot);
    }

    fn h(i: u32) -> u32 {
        i.wrapping_mul(0x9e37_79b9)
    }

    #[test]
    fn a_steady_count_rebuilds_rarely() {
        let d = Dedupe::new();
        let mut book = DedupeBook::default();
        let mut live: Vec<u32> = Vec::new();
        for i in 0..63 {
            insert(&d, &mut book, &mut live, i);
        }
        let before = d.table().retired().count();
        for i in 63..2063u32 {
            d.remove(&mut book, h(live[0]), live[0]);
            live.remove(0);
            insert(&d, &mut book, &mut live, i);
        }
        // Each rebuild (to 128 entries for 63) leaves room for at least 33
        // more inserts before three quarters.
        let rebuilds = d.table().retired().count() - before;
        assert!(rebuilds <= 2000 / 33 + 1, "{rebuilds} rebuilds");
        assert!(live.iter().all(|&i| d.find(h(i), |s| s == i).is_some()));
    }

    fn remove(d: &Dedupe, book: &mut DedupeBook, live: &mut Vec<u32>, slot: u32) {
        d.remove(book, h(slot), slot);
        live.retain(|&s| s != slot);
    }

    /// A table of `slots`, added as a space's writers do: past three
    /// quarters full for 49 of them, so a growth is wanted.
    fn deferred(slots: std::ops::Range<u32>) -> (Dedupe, DedupeBook, Vec<u32>) {
        let (d, mut book, mut live) = (Dedupe::new(), DedupeBook::default(), Vec::new());
        for i in slots {
            insert_deferred(&d, &mut book, &mut live, i);
        }
        (d, book, live)
    }

    /// Begins the growth a writer asked for and builds it from `live`.
    fn grow(d: &Dedupe, book: &mut DedupeBook, live: &[u32]) -> Built {
        let ticket = d.begin_growth(book).expect("growth begins");
        Dedupe::build(ticket, live.iter().map(|&s| (s, h(s))))
    }

    fn all_found(d: &Dedupe, live: &[u32]) -> bool {
        live.iter().all(|&i| d.find(h(i), |s| s == i).is_some())
    }

    #[test]
    fn a_growth_outside_the_lock_replays_what_changed_meanwhile() {
        let d = Dedupe::new();
        let mut book = DedupeBook::default();
        let mut live: Vec<u32> = Vec::new();
        for i in 0..48 {
            insert_deferred(&d, &mut book, &mut live, i);
        }
        assert!(!d.growth_wanted(), "48 of 64 is not yet past three quarters");
        insert_deferred(&d, &mut book, &mut live, 48);
        assert!(d.growth_wanted());
        assert_eq!(d.table().mask + 1, 64, "a deferring writer does not rebuild");
        let ticket = d.begin_growth(&mut book).expect("growth begins");
        assert!(!d.growth_wanted() && d.begin_growth(&mut book).is_none(), "one growth at a time");
        // What the grower reads without the lock: slots 0..=48, except that
        // it sees 54 (filled meanwhile) and still sees 5 (removed meanwhile).
        let snapshot: Vec<u32> = live.iter().copied().chain([54]).collect();
        remove(&d, &mut book, &mut live, 5);
        remove(&d, &mut book, &mut live, 7);
        for i in 49..55 {
            insert_deferred(&d, &mut book, &mut live, i);
        }
        let built = Dedupe::build(ticket, snapshot.iter().map(|&s| (s, h(s))));
        assert_eq!(d.table().mask + 1, 64, "nothing is published before the growth ends");
        d.finish_growth(&mut book, built);
        assert!(d.table().mask + 1 >= 128, "published");
        assert_eq!(book.live as usize, live.len());
        for i in 0..55u32 {
            assert_eq!(d.find(h(i), |s| s == i).is_some(), live.contains(&i), "slot {i}");
        }
        // Removed after the growth: the new table's entry goes.
        remove(&d, &mut book, &mut live, 54);
        assert_eq!(d.find(h(54), |s| s == 54), None);
    }

    /// The same slot added and removed again and again while a growth is
    /// built outside the lock reuses one marker of the current table, but
    /// would take a new entry of the grown one each time: past seven
    /// eighths, the growth is dropped (a full table's probes never end),
    /// to be begun again.
    #[test]
    fn a_growth_overrun_by_changes_is_dropped() {
        let (d, mut book, mut live) = deferred(0..49);
        let built = grow(&d, &mut book, &live);
        for _ in 0..1000 {
            insert_deferred(&d, &mut book, &mut live, 100);
            remove(&d, &mut book, &mut live, 100);
        }
        let current = d.table() as *const Table;
        d.finish_growth(&mut book, built);
        assert_eq!(d.table() as *const Table, current, "the overrun growth publishes nothing");
        assert!(d.growth_wanted(), "and is asked for again");
        assert!(all_found(&d, &live));
        assert_eq!(book.live as usize, live.len());
        let again = grow(&d, &mut book, &live);
        d.finish_growth(&mut book, again);
        assert!(d.table().mask + 1 >= 128, "published");
        assert!(all_found(&d, &live));
    }

    #[test]
    fn a_rebuild_or_a_clear_overtakes_a_growth() {
        let (d, mut book, mut live) = deferred(0..49);
        let stale = grow(&d, &mut book, &live);
        // Filled past seven eighths while the growth is under way: rebuilt
        // under the lock, which overtakes it.
        for i in 49..63 {
            insert_deferred(&d, &mut book, &mut live, i);
        }
        assert!(d.table().mask + 1 >= 128);
        let grown = d.table() as *const Table;
        d.finish_growth(&mut book, stale);
        assert_eq!(d.table() as *const Table, grown, "an overtaken growth publishes nothing");
        assert!(all_found(&d, &live));
        assert_eq!(book.live as usize, live.len());

        // A clear overtakes one too.
        let mut live: Vec<u32> = Vec::new();
        d.clear(&mut book);
        for i in 100..149 {
            insert_deferred(&d, &mut book, &mut live, i);
        }
        let stale = grow(&d, &mut book, &live);
        d.clear(&mut book);
        d.finish_growth(&mut book, stale);
        assert_eq!(d.find(h(100), |_| true), None, "cleared atoms stay gone");
        assert_eq!((book.live, book.used), (0, 0));
    }

    #[test]
    fn a_vacancy_reuses_the_first_removed_entry() {
        let d = Dedupe::new();
        let mut book = DedupeBook::default();
        // Three hashes that start probing at the same entry, with distinct tags.
        let hashes = [5u32, 5 | (1 << 27), 5 | (2 << 27)];
        // Too few to grow the table: nothing to list.
        let none = std::iter::empty;
        for (hash, slot) in [(hashes[0], 10), (hashes[1], 11)] {
            let v = d.find_or_vacancy(&mut book, hash, |_| false, none, false).expect_err("a vacancy");
            d.fill(&mut book, v, hash, slot);
        }
        d.remove(&mut book, hashes[0], 10);
        assert_eq!((book.live, book.used), (1, 2));
        // Found past the removed marker, not stopped by it.
        assert_eq!(d.find_or_vacancy(&mut book, hashes[1], |s| s == 11, none, false).ok(), Some(11));
        let v = d.find_or_vacancy(&mut book, hashes[2], |_| false, none, false).expect_err("a vacancy");
        assert_eq!((v.index, v.empty), (5, false), "the removed entry, met first");
        d.fill(&mut book, v, hashes[2], 12);
        assert_eq!((book.live, book.used), (2, 2));
        assert_eq!(d.find(hashes[2], |s| s == 12), Some(12));
        assert_eq!(d.find(hashes[1], |s| s == 11), Some(11));
    }

    #[test]
    fn insert_find_remove_grow() {
        // Under Miri, fewer: `live` is searched linearly; 800 still grows the table.
        let n: u32 = if cfg!(miri) { 800 } else { 5000 };
        let mut d = Dedupe::new();
        let mut book = DedupeBook::default();
        let mut live: Vec<u32> = Vec::new();
        for i in 0..n {
            insert(&d, &mut book, &mut live, i);
            if i % 3 == 0 {
                d.remove(&mut book, h(i / 2), i / 2);
                live.retain(|&s| s != i / 2);
            }
        }
        for i in 0..n {
            let found = d.find(h(i), |s| s == i);
            assert_eq!(found.is_some(), live.contains(&i), "slot {i}");
        }
        assert_eq!(book.live as usize, live.len());
        let retired = d.table().retired().count();
        assert!(retired > 0);
        assert!(d.allocated_bytes() > (d.table().mask + 1) * 4);
        d.free_retired();
        assert_eq!(d.table().retired().count(), 0);
        assert_eq!(d.allocated_bytes(), (d.table().mask + 1) * 4);
        d.clear(&mut book);
        assert_eq!(d.table().retired().count(), 1, "clear retires the table readers may hold");
        assert_eq!(d.find(h(n - 1), |_| true), None);
    }
}
