//! Read-through: a space over a store that it reads as calls need atoms.
//!
//! A root space given a [`BackingStore`] (upstream's name for what a store
//! offers the pattern matcher) is a cache of that store. The calls that
//! answer for the whole store ask it first, once per atom or type:
//! - an atom's incoming set (`incoming`, `incoming_size`, and the
//!   matcher's walks up from its anchors) fetches the stored links that
//!   hold it;
//! - an atom's values (read or changed) fetch its stored values first;
//! - a lookup by content that misses (`get_node`, `get_link`) looks in
//!   the store;
//! - the atoms of a type, and counts, fetch every stored atom of the type.
//!
//! What is fetched stays in the space; changes stay here until stored
//! (`store_atom`), as with any StorageNode. The matcher estimates an
//! anchor's incoming set from the store without fetching it
//! ([`AtomSpace::incoming_size_hint`]), so a query anchored at a rare
//! word never reads the 50 M links of the predicate beside it.
//!
//! This is not a cache with a size cap: what a query touches stays until
//! the space is dropped or cleared. It is not write-through either.
//!
//! **Invariant:** calls the backing makes on the space, and calls on the
//! store itself ([`without_read_through`]), are not read through
//! (`FILLING`, per thread: a backing fills the space on the thread that
//! asked); a fill changes only the values of atoms whose values no one has
//! read or changed here (it never undoes a change), and adds State and
//! Grant links as they are; no lock of the space is held while the
//! backing runs; fills run one at a time, and an incoming set, an atom's
//! values or a type is marked read only once read whole: a reader on
//! another thread waits for it (`fill_lock`), never sees it half read.
//! A fetch that fails is said on stderr, kept
//! ([`AtomSpace::take_backing_error`]) and ends the query that met it.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::types::Type;

use super::frames::Visit;
use super::AtomSpace;

type HashSet<K> = hashbrown::HashSet<K, foldhash::fast::RandomState>;
type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// A store a space reads through: each call brings what the store holds
/// into `space` (by content, with values), or counts it.
pub trait BackingStore: Send + Sync {
    /// The store's URL, for messages.
    fn url(&self) -> String;

    /// Brings in the stored links that hold `h`, with their members and values.
    fn fetch_incoming(&self, space: &AtomSpace, h: Handle) -> Result<()>;

    /// How many stored links hold `h`, counting no further than `limit`
    /// (a count of `limit` means "at least"); `None` if the store cannot
    /// tell without fetching them.
    fn incoming_count(&self, space: &AtomSpace, h: Handle, limit: usize) -> Result<Option<usize>>;

    /// Brings in every stored atom of type `t` (and its subtypes, with
    /// `subtypes`: `Atom` with subtypes is the whole store), with values.
    fn fetch_type(&self, space: &AtomSpace, t: Type, subtypes: bool) -> Result<()>;

    /// Brings in the stored values of `h`, if the store holds it.
    fn fetch_values(&self, space: &AtomSpace, h: Handle) -> Result<()>;

    /// Brings in the stored node of this type and name, if any.
    fn fetch_node(&self, space: &AtomSpace, t: Type, name: &str) -> Result<Option<Handle>>;

    /// Brings in the stored link of this type over these atoms of the space, if any.
    fn fetch_link(&self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> Result<Option<Handle>>;
}

thread_local! {
    /// The fill under way on this thread (0: none): a backing fills a
    /// space on the thread that asked.
    static FILLING: Cell<u64> = const { Cell::new(0) };
}

/// Numbers fills, so that a fill writes the values of the atoms it
/// brings and never those read or changed here before it.
static FILLS: AtomicU64 = AtomicU64::new(1);

/// A backing attached to a space, and what it has fetched.
pub(super) struct ReadThrough {
    backing: Box<dyn BackingStore>,
    incoming: RwLock<HashSet<Handle>>,
    /// Atoms whose stored values are here, and the fill that brought them.
    values: RwLock<HashMap<Handle, u64>>,
    types: Mutex<HashSet<Type>>,
    /// Stored incoming counts seen: (count, exact).
    counts: Mutex<HashMap<Handle, (usize, bool)>>,
    error: Mutex<Option<Error>>,
    /// Held by each fill: a reader that finds an atom or type not yet
    /// read takes it, so it waits for a fill of the same under way.
    fill_lock: Mutex<()>,
    /// The fill under way (0: none); values it marked are not here yet.
    current: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The fill mark of an atom that a lookup brought with no value to fill.
const DONE: u64 = u64::MAX;
/// `FILLING` while a caller works on the space's store itself: no hook runs.
const QUIET: u64 = u64::MAX - 1;

/// Is a backing filling a space on this thread (or a store call under way,
/// [`without_read_through`])? Then nothing is read through.
pub(super) fn filling() -> bool {
    FILLING.with(Cell::get) != 0
}

/// The backing of `s` itself; a read lock, so that threads reading
/// through one space do not queue for it.
fn backing_of(s: &AtomSpace) -> Option<Arc<ReadThrough>> {
    s.inner.backing.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Is a backing filling a space on this thread (not a store call)?
pub(super) fn in_fill() -> bool {
    !matches!(FILLING.with(Cell::get), 0 | QUIET)
}

/// Runs `f` with nothing read through on this thread: for calls on a
/// store that a space may read through (a StorageNode's own `store_atom`,
/// `fetch_atom`, ...), which hold the store while they run.
pub fn without_read_through<T>(f: impl FnOnce() -> T) -> T {
    if filling() {
        return f();
    }
    FILLING.with(|c| c.set(QUIET));
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            FILLING.with(|c| c.set(0));
        }
    }
    let _reset = Reset;
    f()
}

impl ReadThrough {
    /// Runs one backing call that fills the space, as fill `fill` (a new
    /// one for 0), fills one at a time (`fill_lock`, which the caller
    /// holds: what it checked stays true), with the space's read-through
    /// off on this thread; a failure is kept for the query to report.
    fn fill<T>(&self, _one_at_a_time: &MutexGuard<'_, ()>, fill: u64, f: impl FnOnce(&dyn BackingStore) -> Result<T>) -> Option<T> {
        let fill = if fill == 0 { FILLS.fetch_add(1, Ordering::Relaxed) } else { fill };
        self.current.store(fill, Ordering::Release);
        let was = FILLING.with(|c| c.replace(fill));
        let r = f(&*self.backing);
        FILLING.with(|c| c.set(was));
        self.current.store(0, Ordering::Release);
        self.kept(r)
    }

    /// `r`'s value; a failure is kept for the query to report.
    fn kept<T>(&self, r: Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                let mut slot = lock(&self.error);
                if slot.is_none() {
                    let msg = match e {
                        Error::Backing(msg) => msg,
                        e => e.to_string(),
                    };
                    let e = Error::Backing(format!("{}: {msg}", self.backing.url()));
                    // Said at once: a call that is not a query has no error to return.
                    eprintln!("atomweave: warning: {e}; what was read before stands, and the next query fails with this");
                    *slot = Some(e);
                }
                None
            }
        }
    }

    fn incoming_done(&self, h: Handle) -> bool {
        self.incoming.read().unwrap_or_else(|e| e.into_inner()).contains(&h)
    }

    /// The fill that brought `h`'s values, if one began.
    fn values_by(&self, h: Handle) -> Option<u64> {
        self.values.read().unwrap_or_else(|e| e.into_inner()).get(&h).copied()
    }
}

impl AtomSpace {
    /// Makes this root space read through `backing` (or, with `None`,
    /// stop): from now on it answers as if it held the store's atoms too.
    pub fn set_backing(&self, backing: Option<Box<dyn BackingStore>>) -> Result<()> {
        if !self.is_root() {
            return Err(Error::Hierarchy("only a root space can read through a store; its child spaces see what it reads".into()));
        }
        let rt = backing.map(|backing| {
            Arc::new(ReadThrough {
                backing,
                incoming: RwLock::default(),
                values: RwLock::default(),
                types: Mutex::default(),
                counts: Mutex::default(),
                error: Mutex::default(),
                fill_lock: Mutex::default(),
                current: AtomicU64::new(0),
            })
        });
        let mut slot = self.inner.backing.write().unwrap_or_else(|e| e.into_inner());
        self.inner.backed.store(rt.is_some(), Ordering::Release);
        if let (Some(h), true) = (self.inner.hierarchy.get(), rt.is_some()) {
            h.backed.store(true, Ordering::Release);
        }
        *slot = rt;
        Ok(())
    }

    /// Does this space, or a space below it, read through a store?
    pub fn is_read_through(&self) -> bool {
        self.read_through().is_some()
    }

    /// The first failure of a fetch since the last call, if any: a read
    /// through a store that failed answered from what the space held.
    pub fn take_backing_error(&self) -> Option<Error> {
        if !self.maybe_backed() {
            return None;
        }
        let (_, rt) = self.read_through()?;
        let taken = lock(&rt.error).take();
        taken
    }

    /// Forgets what was read through this space's store (after a clear).
    pub(super) fn forget_read(&self) {
        let Some(rt) = self.inner.backed.load(Ordering::Acquire).then(|| backing_of(self)).flatten() else { return };
        let _one = lock(&rt.fill_lock);
        rt.incoming.write().unwrap_or_else(|e| e.into_inner()).clear();
        rt.values.write().unwrap_or_else(|e| e.into_inner()).clear();
        lock(&rt.types).clear();
        lock(&rt.counts).clear();
    }

    /// The space that reads through a store (this one or one below) and
    /// its backing.
    fn read_through(&self) -> Option<(&AtomSpace, Arc<ReadThrough>)> {
        let backed = |s: &AtomSpace| s.inner.backed.load(Ordering::Acquire).then(|| backing_of(s)).flatten();
        if self.is_root() {
            return backed(self).map(|rt| (self, rt));
        }
        self.walk(|s| match backed(s) {
            Some(rt) => Visit::Found((s, rt)),
            None => Visit::Descend,
        })
    }

    /// Might a read here need the store: does this space read through
    /// one, or is it a child space in a hierarchy where one does? One or
    /// two relaxed loads.
    #[inline]
    fn maybe_backed(&self) -> bool {
        self.inner.backed.load(Ordering::Relaxed) || (!self.is_root() && self.inner.hierarchy.get().is_some_and(|h| h.backed.load(Ordering::Relaxed)))
    }

    /// Fetches the stored incoming set of `h`, once.
    #[inline]
    pub(super) fn through_incoming(&self, h: Handle) {
        if self.maybe_backed() {
            self.through_incoming_slow(h);
        }
    }

    #[inline(never)]
    fn through_incoming_slow(&self, h: Handle) {
        if filling() {
            return;
        }
        let Some((s, rt)) = self.read_through() else { return };
        if !s.contains(h) || rt.incoming_done(h) {
            return;
        }
        let one = lock(&rt.fill_lock);
        if !rt.incoming_done(h) {
            // Marked once whole: another thread reads the set only then.
            if rt.fill(&one, 0, |b| b.fetch_incoming(s, h)).is_some() {
                rt.incoming.write().unwrap_or_else(|e| e.into_inner()).insert(h);
            }
        }
    }

    /// Fetches the stored values of `h`, once, before its first reading
    /// or change here. Whether a change of `h`'s values goes ahead: always,
    /// but in a fill, which changes only the atoms it brings, never those
    /// whose values were here before it.
    #[inline]
    pub(super) fn through_values(&self, h: Handle) -> bool {
        if self.maybe_backed() {
            return self.through_values_slow(h);
        }
        true
    }

    #[inline(never)]
    fn through_values_slow(&self, h: Handle) -> bool {
        let fill = FILLING.with(Cell::get);
        if fill == QUIET {
            return true;
        }
        let Some((s, rt)) = self.read_through() else { return true };
        if !s.contains(h) {
            return true;
        }
        if fill != 0 {
            // A fill changes the atoms whose values no one has read or
            // changed here, or that it is reading whole itself; it marks
            // none (it may bring an atom's truth value and not its values).
            return rt.values_by(h).is_none_or(|by| by == fill);
        }
        match rt.values_by(h) {
            Some(by) if by != rt.current.load(Ordering::Acquire) => return true,
            _ => {}
        }
        // Not read yet, or being read: wait for the fill under way.
        let one = lock(&rt.fill_lock);
        if rt.values_by(h).is_none() {
            let mine = FILLS.fetch_add(1, Ordering::Relaxed);
            // Under way before marked: a reader that sees the mark waits.
            rt.current.store(mine, Ordering::Release);
            rt.values.write().unwrap_or_else(|e| e.into_inner()).insert(h, mine);
            if rt.fill(&one, mine, |b| b.fetch_values(s, h)).is_none() {
                // Read again next time.
                rt.values.write().unwrap_or_else(|e| e.into_inner()).remove(&h);
            }
        }
        true
    }

    /// Fetches every stored atom of type `t` (and subtypes), once.
    #[inline]
    pub(super) fn through_types(&self, t: Type, subtypes: bool) {
        if self.maybe_backed() {
            self.through_types_slow(t, subtypes);
        }
    }

    #[inline(never)]
    fn through_types_slow(&self, t: Type, subtypes: bool) {
        if filling() {
            return;
        }
        let Some((s, rt)) = self.read_through() else { return };
        let types = crate::read::query_types(t, subtypes);
        let todo = || -> Vec<Type> {
            let done = lock(&rt.types);
            types.iter().copied().filter(|t| !done.contains(t)).collect()
        };
        if todo().is_empty() {
            return;
        }
        let one = lock(&rt.fill_lock);
        let todo = todo();
        // One call for the lot where none was read before (the whole
        // store, for `Atom` and its subtypes), else one a type; each
        // marked once read whole.
        if todo.len() == types.len() {
            if rt.fill(&one, 0, |b| b.fetch_type(s, t, subtypes)).is_some() {
                lock(&rt.types).extend(todo);
            }
        } else {
            for t in todo {
                if rt.fill(&one, 0, |b| b.fetch_type(s, t, false)).is_some() {
                    lock(&rt.types).insert(t);
                }
            }
        }
    }

    /// A lookup by content that missed here, tried in the store.
    pub(super) fn through_lookup(&self, t: Type, name: Option<&str>, outgoing: &[Handle]) -> Option<Handle> {
        if !self.maybe_backed() || filling() {
            return None;
        }
        let (s, rt) = self.read_through()?;
        if outgoing.iter().any(|&m| !s.contains(m)) {
            return None;
        }
        let one = lock(&rt.fill_lock);
        let found = rt.fill(&one, 0, |b| match name {
            Some(name) => b.fetch_node(s, t, name),
            None => b.fetch_link(s, t, outgoing),
        })??;
        drop(one);
        // Its values came with it (marked by no fill, if it has none).
        rt.values.write().unwrap_or_else(|e| e.into_inner()).entry(found).or_insert(DONE);
        self.contains(found).then_some(found)
    }

    /// The size of `h`'s incoming set, for choosing where a search starts:
    /// exact in a space that holds everything it shows; over a store, the
    /// stored count (counted no further than `limit`) without fetching,
    /// or what is here if more.
    pub(crate) fn incoming_size_hint(&self, h: Handle, limit: usize) -> usize {
        let here = || self.incoming_size_here(h).unwrap_or(0);
        if !self.maybe_backed() {
            return here();
        }
        let Some((s, rt)) = self.read_through().filter(|_| !filling()) else { return here() };
        if !s.contains(h) || rt.incoming_done(h) {
            return here();
        }
        let known = lock(&rt.counts).get(&h).copied();
        let stored = match known {
            Some((n, exact)) if exact || n >= limit => Some(n),
            _ => {
                // Counting adds nothing: no fill.
                let n = rt.kept(rt.backing.incoming_count(s, h, limit)).flatten();
                if let Some(n) = n {
                    lock(&rt.counts).insert(h, (n, n < limit));
                }
                n
            }
        };
        match stored {
            Some(n) => n.max(here()),
            None => self.incoming_size(h).unwrap_or(0),
        }
    }

    /// Of `atoms`, the index of the one with the thinnest incoming set
    /// (the first of equals). Over a store, each is counted no further
    /// than a limit that grows eightfold until one is under it: the work
    /// is a few times the thinnest set's size, not the thickest's.
    pub(crate) fn thinnest(&self, atoms: &[Handle]) -> Option<usize> {
        if atoms.len() <= 1 {
            return (!atoms.is_empty()).then_some(0);
        }
        let mut limit = if self.maybe_backed() { 64 } else { usize::MAX };
        loop {
            let (i, n) = atoms.iter().map(|&h| self.incoming_size_hint(h, limit)).enumerate().min_by_key(|&(_, n)| n)?;
            if n < limit || limit == usize::MAX {
                return Some(i);
            }
            limit = limit.saturating_mul(8);
        }
    }

    /// How many atoms of type `t` (all atoms, for `None`) there are, for
    /// choosing where a search starts: over a store not yet read for `t`,
    /// a count that makes a scan the last resort.
    pub(crate) fn count_hint(&self, t: Option<Type>) -> usize {
        let here = || t.map_or_else(|| self.size_here(), |t| self.count_of_type_here(t, false));
        if !self.maybe_backed() {
            return here();
        }
        let Some((_, rt)) = self.read_through().filter(|_| !filling()) else { return here() };
        let done = match t {
            Some(t) => lock(&rt.types).contains(&t),
            None => false,
        };
        if done {
            return here();
        }
        usize::MAX >> 8
    }
}
