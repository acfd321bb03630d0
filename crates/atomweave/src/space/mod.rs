//! [`AtomSpace`]: the thread-safe layer.
//!
//! Types, arities, liveness, names, outgoing sets, lookups by content and
//! incoming sets (copied under a sequence lock) are read without locks;
//! truth values that are set and other values under the owning shard's read
//! lock. [`AtomSpace::read`] read-locks every shard once for bulk work and
//! gives incoming sets in place. Writes lock only the shards they touch.
//!
//! This file holds the space itself (its shared state, cloning, read-only
//! mode, whole-space read locks); the rest is split by what a call does:
//! [`add`] (adding and finding by content), [`atom`] (reading one atom),
//! [`change`] (its truth value and values), [`extract`] (removing),
//! [`scan`] (whole-space counts and type scans) and [`frames`] (child
//! spaces: bases, ownership, visibility, copying up).
//!
//! **Invariant:** locks across several stores of a hierarchy are taken
//! from children to bases (deepest store first), each store's shards in
//! increasing order; no lock is held across a call back to the user.

mod add;
mod atom;
mod change;
mod extract;
mod frames;
mod read_through;
mod scan;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};
use crate::lock::{ReadGuard, WriteGuard};
use crate::read::sealed;
use crate::store::{Records, Shard, Store};
use crate::table::AtomTable;
use crate::watch::Watch;

pub use atom::Incoming;
use frames::foreign_memberships;
pub use read_through::{without_read_through, BackingStore};

/// A thread-safe AtomSpace. Cloning it is cheap and yields the same space
/// (like upstream's `AtomSpacePtr`); it is `Send + Sync`.
///
/// A space made with [`AtomSpace::new_child`] is a *frame*: it sees the union
/// of its base spaces, adds new atoms into itself only, keeps truth values and
/// values it sets on base atoms for itself, and extracting a base atom hides
/// it from this space alone. Handles are unique across a whole hierarchy.
///
/// A link is registered in the incoming set of each member in the store that
/// owns the member, whichever space made the link; so a base refuses to drop
/// an atom that a child's link holds, and a recursive extract in a base
/// removes such links from the children too, as upstream does.
#[derive(Clone)]
pub struct AtomSpace {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    bases: Vec<AtomSpace>,
    /// Longest chain of bases below this space (0 for a root). Write locks
    /// on several stores are taken deepest store first.
    depth: usize,
    /// Is the hierarchy below a chain (at most one base each)? Then each
    /// space below is reached once, on one path, and walks need no memo.
    chain: bool,
    /// Set when the first child space is made (in a root: a child's is its
    /// bases'); a root joined to another's hierarchy takes that one's.
    hierarchy: OnceLock<Arc<Hierarchy>>,
    /// Has this space hidden a base atom? Then a link seen from it or its
    /// children is visible only while all its members are.
    hides: AtomicBool,
    /// Refuses every change but a value key's ([`AtomSpace::set_read_only`]).
    read_only: AtomicBool,
    /// A query's scratch frame ([`AtomSpace::is_scratch`]).
    scratch: bool,
    /// Upstream's AtomSpace name (`(AtomSpace "name")`); empty by default.
    name: Box<str>,
    /// Recordings of changes under way ([`AtomSpace::recording`]).
    watch: Watch,
    /// Does this space read through a store? The hot paths test this alone.
    backed: AtomicBool,
    /// The store it reads through ([`AtomSpace::set_backing`]).
    backing: RwLock<Option<Arc<read_through::ReadThrough>>>,
}

/// What the spaces of one hierarchy (a root and its frames) share.
#[derive(Default)]
struct Hierarchy {
    /// The child spaces, to find the space that holds a link.
    children: Mutex<Vec<Weak<Inner>>>,
    /// Child spaces alive; while there are none, a root takes its fast paths.
    live_children: AtomicUsize,
    /// Has a space of the hierarchy ever read through a store? Then its
    /// child spaces look for the store on their reads (`read_through.rs`).
    backed: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Dropping the last clone of a base here, and of its base in turn,
        // would recurse once per level of a frame stack of any depth: the
        // bases are let go in a loop instead.
        let mut bases = self.release();
        while let Some(b) = bases.pop() {
            if let Ok(mut inner) = Arc::try_unwrap(b.inner) {
                bases.append(&mut inner.release());
            }
        }
    }
}

impl Inner {
    /// Unregisters a child space's links from the base atoms they contain,
    /// and hands over its bases (nothing for a root or a released space).
    fn release(&mut self) -> Vec<AtomSpace> {
        if self.bases.is_empty() {
            return Vec::new();
        }
        // Unregister this space's links from the base atoms they contain.
        // Nothing else can reach this store any more, so these locks are free.
        let guards: Vec<ReadGuard<'_, Shard>> = (0..SHARDS).map(|s| self.store.read(s)).collect();
        let memberships = foreign_memberships(&self.store, &self.bases, |s| &*guards[s]);
        drop(guards);
        for (l, x, owner) in memberships {
            owner.recs().inc_remove_in(&mut owner.write_shard(x.shard()), x, l);
        }
        if let Some(h) = self.hierarchy.get() {
            h.live_children.fetch_sub(1, Ordering::Release);
        }
        std::mem::take(&mut self.bases)
    }
}

impl Default for AtomSpace {
    fn default() -> Self {
        Self::new()
    }
}

/// A space held without keeping it alive: what a stream value remembers
/// its space by, since the space may hold the stream.
#[derive(Clone, Debug)]
pub struct WeakSpace(Weak<Inner>);

impl WeakSpace {
    /// The space, if it is still alive.
    pub fn upgrade(&self) -> Option<AtomSpace> {
        self.0.upgrade().map(|inner| AtomSpace { inner })
    }

    /// Is this `space`?
    pub fn is(&self, space: &AtomSpace) -> bool {
        std::ptr::eq(self.0.as_ptr(), Arc::as_ptr(&space.inner))
    }
}

impl AtomSpace {
    /// This space, held weakly.
    pub fn downgrade(&self) -> WeakSpace {
        WeakSpace(Arc::downgrade(&self.inner))
    }

    /// Is this the only handle on the space (no clone, no child over it,
    /// nothing holding it weakly, such as a stream)? A child space's own
    /// entry in its hierarchy's registry is the one weak reference allowed.
    pub(crate) fn is_sole_handle(&self) -> bool {
        let registered = usize::from(!self.is_root());
        Arc::strong_count(&self.inner) == 1 && Arc::weak_count(&self.inner) == registered
    }

    /// Is this a child space with nothing of its own: no atom added or
    /// copied in, no value or truth value set on a base atom, none hidden,
    /// not made read-only?
    pub(crate) fn is_untouched_frame(&self) -> bool {
        !self.is_root() && !self.is_read_only() && !self.inner.hides.load(Ordering::Acquire) && self.store().holds_nothing()
    }

    /// Does `h` hold a VariableNode or GlobNode anywhere (scopes and quotes
    /// not minded)? A walk with a stack, each atom once.
    fn holds_variable(&self, h: Handle) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![h];
        while let Some(x) = todo.pop() {
            if matches!(self.get_type(x), Some(crate::types::VARIABLE_NODE | crate::types::GLOB_NODE)) {
                return true;
            }
            if seen.insert(x) {
                todo.extend_from_slice(self.outgoing(x).unwrap_or(&[]));
            }
        }
        false
    }
}

impl PartialEq for AtomSpace {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for AtomSpace {}

impl std::hash::Hash for AtomSpace {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.inner).hash(state);
    }
}

impl std::fmt::Debug for AtomSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomSpace({:p}, {} atoms, {} bases)", Arc::as_ptr(&self.inner), self.size(), self.inner.bases.len())
    }
}

impl From<AtomTable> for AtomSpace {
    fn from(t: AtomTable) -> Self {
        AtomSpace {
            inner: Arc::new(Inner {
                store: t.store,
                bases: Vec::new(),
                depth: 0,
                chain: true,
                hierarchy: OnceLock::new(),
                hides: AtomicBool::new(false),
                read_only: AtomicBool::new(false),
                scratch: false,
                name: Box::default(),
                watch: Watch::default(),
                backed: AtomicBool::new(false),
                backing: RwLock::default(),
            }),
        }
    }
}

/// A read-locked view of a whole [`AtomSpace`]; see [`AtomSpace::read`].
pub struct SpaceRead<'a> {
    recs: &'a Records,
    guards: [ReadGuard<'a, Shard>; SHARDS],
}

impl sealed::Access for SpaceRead<'_> {
    #[inline]
    fn recs(&self) -> &Records {
        self.recs
    }

    #[inline]
    fn shard(&self, s: usize) -> &Shard {
        &self.guards[s]
    }
}

impl AtomSpace {
    /// An empty space.
    pub fn new() -> Self {
        AtomTable::new().into()
    }

    /// An empty space with upstream's AtomSpace name: `(AtomSpace "name")`,
    /// as a value holds it and Atomese writes it.
    pub fn new_named(name: &str) -> Self {
        let mut space = Self::new();
        Arc::get_mut(&mut space.inner).expect("a new space has one owner").name = name.into();
        space
    }

    /// The space's name ("" unless made by [`new_named`](Self::new_named)).
    pub fn space_name(&self) -> &str {
        &self.inner.name
    }

    /// An empty child space (frame) over `bases`, which must belong to one
    /// hierarchy (descend from the same root space); but a root space that
    /// has never held an atom joins the hierarchy of the others, so that
    /// spaces made side by side (upstream's `(AtomSpace a b)` over two new
    /// `(AtomSpace)`s) can be the bases of one child.
    pub fn new_child(bases: &[&AtomSpace]) -> Result<AtomSpace> {
        Self::child(bases, false)
    }

    /// A query's scratch frame over `base` (see `query/transient.rs`).
    pub(crate) fn new_scratch(base: &AtomSpace) -> Result<AtomSpace> {
        Self::child(&[base], true)
    }

    /// Is this a query's scratch frame, where a grounded call's arguments
    /// and what it adds go, made for a query (or a call) and dropped after
    /// it? A front end that names spaces holds such a frame for the call
    /// alone, or it would keep every query's frames.
    pub fn is_scratch(&self) -> bool {
        self.inner.scratch
    }

    /// The single-threaded table inside, if this is a root space and no other
    /// clone of it (or child of it) exists.
    pub fn try_into_table(self) -> std::result::Result<AtomTable, AtomSpace> {
        if !self.is_root() {
            return Err(self);
        }
        match Arc::try_unwrap(self.inner) {
            // A root's `Drop` does nothing, so its store can be moved out.
            Ok(mut inner) => Ok(AtomTable { store: std::mem::replace(&mut inner.store, Store::new()) }),
            Err(inner) => Err(AtomSpace { inner }),
        }
    }

    #[inline]
    fn store(&self) -> &Store {
        &self.inner.store
    }

    #[inline]
    fn recs(&self) -> &Records {
        &self.inner.store.recs
    }

    #[inline]
    fn is_root(&self) -> bool {
        self.inner.bases.is_empty()
    }

    fn read_shard(&self, s: usize) -> ReadGuard<'_, Shard> {
        self.store().read(s)
    }

    fn write_shard(&self, s: usize) -> WriteGuard<'_, Shard> {
        self.store().write(s)
    }

    /// Makes the space read-only (or writable again): then an atom that is
    /// here is still found by `add_node` and `add_link`, but adding a new
    /// one, changing a value or a truth value, extracting and clearing are
    /// refused ([`Error::ReadOnly`]). Its child spaces stay writable, and
    /// keep what they change on its atoms for themselves. One exception:
    /// the truth-value key, which upstream holds in no space, is added when
    /// an atom's keys are asked for ([`value_key`](Self::value_key)).
    pub fn set_read_only(&self, read_only: bool) {
        self.inner.read_only.store(read_only, Ordering::Release);
    }

    /// See [`set_read_only`](Self::set_read_only).
    pub fn is_read_only(&self) -> bool {
        self.inner.read_only.load(Ordering::Acquire)
    }

    /// [`Error::ReadOnly`] if the space is read-only.
    #[inline]
    fn writable(&self, what: &str) -> Result<()> {
        // A read-only space over a store still brings in what it reads.
        if self.inner.read_only.load(Ordering::Relaxed) && !read_through::in_fill() {
            return Err(Error::ReadOnly(what.to_string()));
        }
        Ok(())
    }

    /// Heap bytes held by this space's own store, by its own accounting.
    pub fn heap_bytes(&self) -> usize {
        self.store().heap_bytes()
    }

    /// [`heap_bytes`](Self::heap_bytes) by what holds them: records, hashes,
    /// dedupe tables, names, outgoing and incoming sets, truth values,
    /// values, type lists.
    pub fn heap_parts(&self) -> [(&'static str, usize); 9] {
        self.store().heap_parts()
    }

    /// Read-locks every shard, for consistent bulk reads at full speed
    /// ([`AtomRead`](crate::AtomRead)). Writers wait until the guard is dropped, except
    /// replacements of simple truth values, which take no lock (a read sees
    /// the old value or the new, whole). A thread holding it must not write
    /// to this space. `None` while child spaces exist in the hierarchy: a
    /// child's atoms live in other stores, and a root's incoming sets then
    /// hold children's links to filter out; `None` too while an atom's
    /// truth value is a FormulaTruthValue, which only a reading through the
    /// space (running code, which may write) gives.
    pub fn read(&self) -> Option<SpaceRead<'_>> {
        if !self.is_root() || self.has_children() {
            return None;
        }
        let view = self.read_own();
        // A child registers links here only under these locks: checked again
        // now, the answer holds for as long as the guard does.
        (!self.has_children() && !view.guards.iter().any(|g| g.has_tv_streams())).then_some(view)
    }

    fn read_own(&self) -> SpaceRead<'_> {
        SpaceRead { recs: self.recs(), guards: std::array::from_fn(|s| self.store().read(s)) }
    }
}
