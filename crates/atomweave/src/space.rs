//! [`AtomSpace`]: the thread-safe layer.
//!
//! Types, arities, liveness, names, outgoing sets, lookups by content and
//! incoming sets (copied under a sequence lock) are read without locks;
//! truth values that are set and other values under the owning shard's read
//! lock. [`AtomSpace::read`] read-locks every shard once for bulk work and
//! gives incoming sets in place. Writes lock only the shards they touch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::lock::{ReadGuard, WriteGuard};
use smallvec::SmallVec;

use crate::batch::{LinkBatch, NodeBatch};
use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};
use crate::read::AtomSource;
use crate::read::{sealed, AtomRead};
use crate::store::{Records, Shard, ShardAccess, ShardMask, Store, TvEntry};
use crate::table::{link_key, prepare_links, tv_of, AtomTable};
use crate::types::node_type;
use crate::types::Type;
use crate::value::{StreamValue, TruthValue, Value, AV_KEY, TV_KEY};
use crate::watch::{Change, Changes, Watch};

/// How far ahead a walk over atoms fetches their records.
pub(crate) const PREFETCH_AHEAD: usize = 16;

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
}

/// What the spaces of one hierarchy (a root and its frames) share.
#[derive(Default)]
struct Hierarchy {
    /// The child spaces, to find the space that holds a link.
    children: Mutex<Vec<Weak<Inner>>>,
    /// Child spaces alive; while there are none, a root takes its fast paths.
    live_children: AtomicUsize,
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

/// What a walk over the spaces below a frame does after visiting one.
enum Visit<R> {
    Found(R),
    Descend,
    /// Skip this space's bases (they may still be reached on another path).
    Prune,
}

/// Write locks on the shards of base atoms' owners, for registering a
/// child's link in their incoming sets. Taken deepest store first, then by
/// store and shard, after the child's own locks: the one lock order of a
/// hierarchy is from children to bases.
struct OwnerLocks<'a> {
    guards: Vec<(usize, usize, &'a AtomSpace, WriteGuard<'a, Shard>)>,
}

impl<'a> OwnerLocks<'a> {
    fn lock(members: &'a [(Handle, AtomSpace)]) -> Self {
        let mut keys: Vec<(std::cmp::Reverse<usize>, usize, usize, &'a AtomSpace)> =
            members.iter().map(|(x, o)| (std::cmp::Reverse(o.inner.depth), Arc::as_ptr(&o.inner) as usize, x.shard(), o)).collect();
        keys.sort_by_key(|k| (k.0, k.1, k.2));
        keys.dedup_by_key(|k| (k.1, k.2));
        OwnerLocks { guards: keys.into_iter().map(|(_, p, s, o)| (p, s, o, o.write_shard(s))).collect() }
    }

    fn guard(&mut self, x: Handle, owner: &AtomSpace) -> (&'a AtomSpace, &mut Shard) {
        let p = Arc::as_ptr(&owner.inner) as usize;
        let (_, _, o, g) = self.guards.iter_mut().find(|(gp, gs, _, _)| *gp == p && *gs == x.shard()).expect("owner shard locked");
        (*o, &mut **g)
    }

    /// Registers link `l` with base member `x`.
    fn push(&mut self, x: Handle, owner: &AtomSpace, l: Handle) {
        let (o, sh) = self.guard(x, owner);
        o.recs().inc_push_in(sh, x, l);
    }

    fn remove(&mut self, x: Handle, owner: &AtomSpace, l: Handle) {
        let (o, sh) = self.guard(x, owner);
        o.recs().inc_remove_in(sh, x, l);
    }
}

/// The links of a child store that hold base atoms, as (link, base member,
/// the member's holder) triples; `shard` reads the store's shards as the
/// caller holds them.
fn foreign_memberships<'s>(store: &Store, bases: &[AtomSpace], shard: impl Fn(usize) -> &'s Shard) -> Vec<(Handle, Handle, AtomSpace)> {
    let mut found = Vec::new();
    for s in 0..SHARDS {
        let sh = shard(s);
        for t in Records::types_in(sh).filter(|t| t.is_link()) {
            for &b in Records::blocks_in(sh, t) {
                for l in store.recs.block_atoms(s, b) {
                    let mut seen: Vec<Handle> = Vec::new();
                    for &x in store.recs.outgoing(l).unwrap_or(&[]) {
                        if store.recs.rec(x).is_none() && !seen.contains(&x) {
                            seen.push(x);
                            if let Some(o) = bases.iter().find_map(|b| b.holder(x)) {
                                found.push((l, x, o.clone()));
                            }
                        }
                    }
                }
            }
        }
    }
    found
}

/// An incoming set copied out of a space: up to eight links without
/// allocating. [`AtomSpace::read`] gives them in place instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming(SmallVec<[Handle; 8]>);

impl std::ops::Deref for Incoming {
    type Target = [Handle];
    fn deref(&self) -> &[Handle] {
        &self.0
    }
}

impl IntoIterator for Incoming {
    type Item = Handle;
    type IntoIter = smallvec::IntoIter<[Handle; 8]>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
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
            }),
        }
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

    /// A query's scratch frame over `base` (see `query/scratch.rs`).
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

    fn child(bases: &[&AtomSpace], scratch: bool) -> Result<AtomSpace> {
        let Some(&first) = bases.first() else {
            return Err(Error::Hierarchy("a child space needs at least one base space".into()));
        };
        let anchor = bases.iter().copied().find(|b| b.store().numbered()).unwrap_or(first);
        let joins = |b: &AtomSpace| b.is_root() && !b.store().numbered() && b.inner.hierarchy.get().is_none();
        if bases.iter().any(|b| !b.store().same_hierarchy(anchor.store()) && !joins(b)) {
            return Err(Error::Hierarchy(
                "the base spaces of a child space must descend from one root space (a root space that has never held an atom joins the others')".into(),
            ));
        }
        let hierarchy = anchor.inner.hierarchy.get_or_init(Arc::default).clone();
        for b in bases {
            // A root that never held an atom takes the anchor's slot numbers
            // and registry of children (a lost race to add its first atom
            // leaves it out). Every base must end with the anchor's registry:
            // a root that shares the numbering but not the registry would
            // not know of the child holding its atoms.
            let numbered = b.store().same_hierarchy(anchor.store()) || b.store().join(anchor.store());
            if !numbered || !Arc::ptr_eq(b.inner.hierarchy.get_or_init(|| hierarchy.clone()), &hierarchy) {
                return Err(Error::Hierarchy(
                    "a base space changed while the child space was made over it (it took its first atom, or a child of its own): try again, or make the child over spaces of one hierarchy".into(),
                ));
            }
        }
        let first = anchor;
        // A base given twice is one base: each lookup walks every path
        // through the bases, and (s, s) at every level doubled them.
        let mut unique: Vec<AtomSpace> = Vec::with_capacity(bases.len());
        for &b in bases {
            if !unique.iter().any(|u| Arc::ptr_eq(&u.inner, &b.inner)) {
                unique.push(b.clone());
            }
        }
        let inner = Arc::new(Inner {
            store: Store::child_of(first.store()),
            depth: 1 + unique.iter().map(|b| b.inner.depth).max().unwrap_or(0),
            chain: unique.len() == 1 && unique[0].inner.chain,
            bases: unique,
            hierarchy: OnceLock::from(hierarchy.clone()),
            hides: AtomicBool::new(false),
            read_only: AtomicBool::new(false),
            scratch,
            name: Box::default(),
            watch: Watch::default(),
        });
        let mut children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.retain(|w| w.strong_count() > 0);
        children.push(Arc::downgrade(&inner));
        hierarchy.live_children.fetch_add(1, Ordering::Release);
        Ok(AtomSpace { inner })
    }

    /// Do the two spaces belong to one hierarchy (a root and the child
    /// spaces built on it)? Only then is a handle of one meaningful in the
    /// other; across hierarchies an atom must be copied by content.
    pub fn same_hierarchy(&self, other: &AtomSpace) -> bool {
        self.store().same_hierarchy(other.store())
    }

    /// Atom `h` of space `from`, here: the same handle within one
    /// hierarchy; across hierarchies, or where this frame hid `h`, the atom
    /// of the same content, added (members first, with its truth value) if
    /// it is not here, as upstream adds an atom of one space to another.
    pub fn import(&self, from: &AtomSpace, h: Handle) -> Result<Handle> {
        if self.same_hierarchy(from) && (self.contains(h) || !from.contains(h)) {
            return Ok(h);
        }
        let copied = map_up(from, h, |x, t, content| {
            let copy = match content {
                Ok(name) => self.add_node(t, name)?,
                Err(members) => self.add_link(t, members)?,
            };
            let tv = from.get_tv(x).unwrap_or_default();
            if !tv.is_default() {
                self.set_tv(copy, tv)?;
            }
            Ok(Some(copy))
        })?;
        Ok(copied.expect("every atom is copied"))
    }

    /// Atom `h` of space `from`, here, if it is: the same handle within one
    /// hierarchy, else the atom of the same content (never added): a frame
    /// that hid a base atom and added it again holds it under a new handle.
    pub fn find(&self, from: &AtomSpace, h: Handle) -> Option<Handle> {
        if self.same_hierarchy(from) && self.contains(h) {
            return Some(h);
        }
        map_up(from, h, |_, t, content| {
            Ok(match content {
                Ok(name) => self.get_node(t, name),
                Err(members) => self.get_link(t, members),
            })
        })
        .ok()
        .flatten()
    }

    /// The base spaces (empty for a root space).
    pub fn bases(&self) -> &[AtomSpace] {
        &self.inner.bases
    }

    /// Is the hierarchy below this space a chain (at most one base each)?
    /// Then every atom it sees has a content of its own. Below a space of
    /// two bases, each base may hold its own copy of a content, and this
    /// space sees both (a store that writes each atom as a record of its
    /// own would write the content twice).
    pub fn is_chain(&self) -> bool {
        self.inner.chain
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

    /// Are there child spaces in this hierarchy? Until there are, a root
    /// takes its fast paths.
    #[inline]
    fn has_children(&self) -> bool {
        self.inner.hierarchy.get().is_some_and(|h| h.live_children.load(Ordering::Acquire) > 0)
    }

    /// The space of the hierarchy that holds `h`, if `h` is visible from this one.
    #[inline]
    fn owner(&self, h: Handle) -> Option<&AtomSpace> {
        if self.is_root() {
            return self.recs().rec(h).is_some().then_some(self);
        }
        self.owner_in_frame(h)
    }

    /// The frame case of [`owner`](Self::owner), kept out of line so the
    /// root's inlines into its callers.
    #[inline(never)]
    fn owner_in_frame(&self, h: Handle) -> Option<&AtomSpace> {
        let o = self.raw_owner(h)?;
        // A link whose member is hidden on the way is hidden with it.
        if self.hides_on_path() && o.recs().rec(h)?.is_link() && !self.members_visible(o.recs().outgoing(h).unwrap_or(&[])) {
            return None;
        }
        Some(o)
    }

    /// Are these atoms, and the members under them, all held along the
    /// bases and not hidden? A stack and a memo: links nest deeper than any
    /// stack, and a shared member is looked up once.
    #[cold]
    fn members_visible(&self, members: &[Handle]) -> bool {
        let mut todo = members.to_vec();
        let mut seen = std::collections::HashSet::new();
        while let Some(m) = todo.pop() {
            if !seen.insert(m) {
                continue;
            }
            let Some(o) = self.raw_owner(m) else { return false };
            todo.extend_from_slice(o.recs().outgoing(m).unwrap_or(&[]));
        }
        true
    }

    /// Visits this space and every space below it once, depth first in
    /// base order (the order lookups through bases take), until `visit`
    /// finds something. A stack, not recursion: frame stacks have no depth
    /// limit; and a memo where bases share spaces, so a diamond of frames
    /// costs its size, not its number of paths.
    fn walk<'a, R>(&'a self, mut visit: impl FnMut(&'a AtomSpace) -> Visit<R>) -> Option<R> {
        let mut stack: SmallVec<[&'a AtomSpace; 8]> = SmallVec::new();
        stack.push(self);
        let mut seen: Option<std::collections::HashSet<*const Inner>> = (!self.inner.chain).then(Default::default);
        while let Some(s) = stack.pop() {
            if let Some(seen) = seen.as_mut() {
                if !seen.insert(Arc::as_ptr(&s.inner)) {
                    continue;
                }
            }
            match visit(s) {
                Visit::Found(r) => return Some(r),
                Visit::Prune => {}
                Visit::Descend => stack.extend(s.inner.bases.iter().rev()),
            }
        }
        None
    }

    /// The space that holds `h` along the bases, ignoring hidden members.
    fn raw_owner(&self, h: Handle) -> Option<&AtomSpace> {
        self.walk(|s| match s.recs().rec(h) {
            Some(_) => Visit::Found(s),
            None if s.recs().is_hidden(h) => Visit::Prune,
            None => Visit::Descend,
        })
    }

    /// The store among this space and its bases that holds `h`, hidden or not.
    fn holder(&self, h: Handle) -> Option<&AtomSpace> {
        self.walk(|s| if s.recs().rec(h).is_some() { Visit::Found(s) } else { Visit::Descend })
    }

    /// Does `self` have `ancestor` among its bases, transitively?
    fn descends_from(&self, ancestor: &AtomSpace) -> bool {
        self != ancestor && self.walk(|s| if s == ancestor { Visit::Found(()) } else { Visit::Descend }).is_some()
    }

    /// The spaces from this one down to the one that holds `h`, each the
    /// first base of the one before that shows `h`: where a frame's own
    /// truth value or value of `h` overrides its bases'. `h` must be visible.
    fn view_path(&self, h: Handle) -> SmallVec<[&AtomSpace; 4]> {
        let mut path: SmallVec<[&AtomSpace; 4]> = SmallVec::new();
        let mut s = self;
        path.push(s);
        while s.recs().rec(h).is_none() {
            // In a chain the one base shows `h`; no need to ask it.
            let next = match s.inner.bases.as_slice() {
                [b] if s.inner.chain => Some(b),
                bases => bases.iter().find(|b| b.contains(h)),
            };
            let Some(next) = next else { break };
            s = next;
            path.push(s);
        }
        path
    }

    /// The space whose version of `h` this one shows: the nearest along the
    /// bases that holds `h` or keeps a value of its own for it. Upstream's
    /// `getAtomSpace()` of the atom this space hands out: a frame that
    /// changed a base atom's value holds a copy of that atom, and other
    /// frames still see the base's. `None` if `h` is not visible here.
    pub fn version_space(&self, h: Handle) -> Option<&AtomSpace> {
        if self.is_root() {
            return self.recs().rec(h).is_some().then_some(self);
        }
        self.owner(h)?;
        self.view_path(h).into_iter().find(|s| s.recs().keeps(h))
    }

    /// Makes this space hold its own version of link `h`, just added here
    /// from members in the versions of `member_spaces` (each member's
    /// [`version_space`](Self::version_space) where the caller got it), if
    /// one of them differs from the version the link's holder has (a frame
    /// in between changed that member's values): upstream copies such a
    /// link, with its values, into the frame. Whether it did.
    pub fn take_newer_version(&self, h: Handle, member_spaces: &[&AtomSpace]) -> Result<bool> {
        if self.is_root() || self.is_read_only() {
            return Ok(false);
        }
        let v = self.version_space(h).ok_or(Error::InvalidHandle(h))?;
        if v == self {
            return Ok(false);
        }
        let members = v.outgoing(h).unwrap_or(&[]);
        if members.iter().zip(member_spaces).all(|(&m, &s)| v.version_space(m) == Some(s)) {
            return Ok(false);
        }
        match self.tv_entry(h) {
            Some(TvEntry::Stream(s)) => self.set_tv_stream(h, s)?,
            e => self.set_tv(h, e.map_or(TruthValue::DEFAULT, TvEntry::sampled))?,
        }
        Ok(true)
    }

    /// The live spaces made directly over this one (upstream's incoming set
    /// of an AtomSpace), in the order they were made.
    pub fn children(&self) -> Vec<AtomSpace> {
        if !self.has_children() {
            return Vec::new();
        }
        let Some(hierarchy) = self.inner.hierarchy.get() else { return Default::default() };
        let children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.iter().filter_map(Weak::upgrade).map(|inner| AtomSpace { inner }).filter(|c| c.inner.bases.contains(self)).collect()
    }

    /// Are there live child spaces over this one?
    fn has_live_descendants(&self) -> bool {
        if !self.has_children() {
            return false;
        }
        let Some(hierarchy) = self.inner.hierarchy.get() else { return Default::default() };
        let children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.iter().filter_map(Weak::upgrade).any(|c| AtomSpace { inner: c }.descends_from(self))
    }

    /// Every atom this space's own store holds.
    fn own_atoms(&self) -> Vec<Handle> {
        let mut atoms = Vec::new();
        for s in 0..SHARDS {
            let sh = self.read_shard(s);
            for t in Records::types_in(&sh) {
                for &b in Records::blocks_in(&sh, t) {
                    atoms.extend(self.recs().block_atoms(s, b));
                }
            }
        }
        atoms
    }

    /// Has this space, or a base below it, hidden anything?
    fn hides_on_path(&self) -> bool {
        self.walk(|s| if s.inner.hides.load(Ordering::Acquire) { Visit::Found(()) } else { Visit::Descend }).is_some()
    }

    /// The record of `h` as seen from this space: its own, or a base's.
    #[inline]
    fn record(&self, h: Handle) -> Option<crate::store::Rec> {
        match self.recs().rec(h) {
            Some(r) if self.is_root() => Some(r),
            None if self.is_root() => None,
            _ => self.owner_in_frame(h).and_then(|o| o.recs().rec(h)),
        }
    }

    /// The space that holds `h`: this one, a base, or a child space anywhere
    /// in the hierarchy (links of children are registered with base atoms).
    fn space_of(&self, h: Handle) -> Option<AtomSpace> {
        if let Some(o) = self.raw_owner(h) {
            return Some(o.clone());
        }
        let Some(hierarchy) = self.inner.hierarchy.get() else { return Default::default() };
        let children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.iter().filter_map(Weak::upgrade).find(|c| c.store.recs.rec(h).is_some()).map(|inner| AtomSpace { inner })
    }

    // ----- adding and looking up -----

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
        if self.inner.read_only.load(Ordering::Relaxed) {
            return Err(Error::ReadOnly(what.to_string()));
        }
        Ok(())
    }

    /// Adds a node, or returns the existing one (in this space or a base).
    pub fn add_node(&self, t: Type, name: &str) -> Result<Handle> {
        self.add_node_as(t, name, true)
    }

    /// The atom of a value key that upstream holds in no space (the truth-
    /// and attention-value keys, [`sexpr::value_key_atoms`](crate::sexpr::value_key_atoms)):
    /// found, or added, also to a read-only space, where it is not the
    /// user's atom (dumps, root lists and queries leave it out). What a
    /// front end hands back as the key of an atom's truth value: asking
    /// for an atom's keys is a read, and a read-only space answers it.
    pub fn value_key(&self, name: &str) -> Result<Handle> {
        if ![TV_KEY, AV_KEY].contains(&name) {
            return Err(Error::InvalidValue(format!("value_key: {name:?} is neither the truth-value nor the attention-value key")));
        }
        self.add_node_as(crate::types::PREDICATE_NODE, name, false)
    }

    /// An atom a base holds, met by `add_node` or `add_link`: found, as an
    /// atom this space holds is (also read-only), unless this space hid it
    /// (extracted it); then adding brings it back, and the links over it
    /// that were hidden with it.
    fn found_in_base(&self, h: Handle) -> Result<Handle> {
        if !self.contains(h) {
            self.writable("no atom is added")?;
            self.recs().unhide_in(&mut self.write_shard(h.shard()), h);
        }
        Ok(h)
    }

    /// `add_node`, refused in a read-only space where `checked` (or where
    /// the node is a base's that this space hid).
    fn add_node_as(&self, t: Type, name: &str, checked: bool) -> Result<Handle> {
        node_type(t)?;
        let hash = self.recs().hash_node(t, name);
        let s = Records::home_of_hash(hash);
        // An atom that exists is found without a lock.
        if let Some(h) = self.recs().find_node(hash, t, name) {
            return Ok(h);
        }
        if !self.is_root() {
            if let Some(h) = self.inner.bases.iter().find_map(|b| b.get_node(t, name)) {
                return self.found_in_base(h);
            }
        }
        if checked {
            self.writable("no atom is added")?;
        }
        let added = self.recs().add_node_in(&mut self.write_shard(s), hash, t, name, true);
        self.store().grow_if_wanted(s, false);
        self.noted_atom(added)
    }

    /// Notes an atom that may be new for the recordings under way; gives it back.
    fn noted_atom(&self, added: Result<Handle>) -> Result<Handle> {
        if let Ok(h) = added {
            self.inner.watch.note(|| Change::Atom(h));
        }
        added
    }

    /// Runs `f` and gives back, with its result, the changes made to this
    /// space meanwhile, by any thread (other clients' too), up to
    /// [`Changes::MAX`] of them: for a front end that writes what code did
    /// (a query's Put, Delete or SetValue) through to a store. A change
    /// noted may name an atom that was there already.
    pub fn recording<T>(&self, f: impl FnOnce() -> T) -> (T, Changes) {
        self.inner.watch.record(f)
    }

    /// Adds a link, or returns the existing one (in this space or a base).
    /// Every member must be in the space.
    pub fn add_link(&self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        match t {
            crate::types::STATE_LINK => self.add_state(outgoing),
            crate::types::GRANT_LINK => self.add_grant(outgoing),
            _ => self.add_link_as_is(t, outgoing),
        }
    }

    /// A GrantLink `(Grant KEY VALUE)` with a closed value is the key's one
    /// grant, and the first stays: another grant of the key gives the one
    /// there. (One holding a variable is a pattern, made as it is.)
    fn add_grant(&self, outgoing: &[Handle]) -> Result<Handle> {
        if let [key, value] = *outgoing {
            let granted = self
                .is_closed(value)
                .then(|| {
                    self.incoming_by_type(key, crate::types::GRANT_LINK)
                        .into_iter()
                        .find(|&g| self.outgoing(g).is_some_and(|o| o.len() == 2 && o[0] == key && self.is_closed(o[1])))
                })
                .flatten();
            if let Some(g) = granted {
                return Ok(g);
            }
        }
        self.add_link_as_is(crate::types::GRANT_LINK, outgoing)
    }

    /// A closed StateLink `(State ANCHOR VALUE)` (no free variable) is the
    /// anchor's one state, as upstream's: adding it
    /// removes the anchor's other closed states, with the links that hold
    /// them (a query's result set that named the old state).
    fn add_state(&self, outgoing: &[Handle]) -> Result<Handle> {
        if let Some(h) = self.get_link(crate::types::STATE_LINK, outgoing) {
            return Ok(h);
        }
        let h = self.add_link_as_is(crate::types::STATE_LINK, outgoing)?;
        if let [anchor, value] = *outgoing {
            // A pattern (a variable anyplace in it) is no state: only closed
            // StateLinks replace one another, as upstream's.
            if self.is_closed(anchor) && self.is_closed(value) {
                for old in self.incoming_by_type(anchor, crate::types::STATE_LINK) {
                    if old != h && self.outgoing(old).is_some_and(|o| o.len() == 2 && o[0] == anchor && self.is_closed(o[1])) {
                        let _ = self.extract(old, true);
                    }
                }
            }
        }
        Ok(h)
    }

    /// Does `x` hold no variable (a value, not a pattern)? Walked once per
    /// atom: a shared subterm is not walked again.
    pub(crate) fn is_closed(&self, x: Handle) -> bool {
        !self.holds_variable(x)
    }

    fn add_link_as_is(&self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        let out = link_key(t, outgoing, self)?;
        let hash = self.recs().hash_link(t, &out);
        let home = Records::home_of_hash(hash);
        if self.is_root() {
            // The misses (the dedupe probe, the members' slots and incoming
            // blocks) are taken before locking, not under the locks, where
            // they held up other threads (with two threads adding, a quarter
            // of their time went to waiting for shards).
            self.recs().prefetch_link(hash, &out);
            if let Some(h) = self.recs().find_link(hash, t, &out) {
                return Ok(h);
            }
            self.writable("no atom is added")?;
            self.recs().prefetch_incoming(&out);
            let added = self.recs().add_link_in(&mut self.store().lock(ShardMask::of(&out).with(home)), hash, t, &out, &[], true);
            self.store().grow_if_wanted(home, true);
            return self.noted_atom(added.map(|(h, _)| h));
        }
        // Members held by bases, each with its holder.
        let mut foreign: Vec<(Handle, AtomSpace)> = Vec::new();
        for &x in out.iter() {
            if self.recs().rec(x).is_none() && !foreign.iter().any(|(f, _)| *f == x) {
                let o = self.owner(x).ok_or(Error::InvalidHandle(x))?;
                foreign.push((x, o.clone()));
            }
        }
        if let Some(h) = self.recs().find_link(hash, t, &out) {
            return Ok(h);
        }
        // Only links made of base atoms alone can be in a base.
        if out.iter().all(|&x| self.recs().rec(x).is_none()) {
            if let Some(h) = self.inner.bases.iter().find_map(|b| b.get_link(t, &out)) {
                return self.found_in_base(h);
            }
        }
        self.writable("no atom is added")?;
        let foreign_members: Vec<Handle> = foreign.iter().map(|(x, _)| *x).collect();
        let mut locks = self.store().lock(ShardMask::of(&out).with(home));
        let mut owners = OwnerLocks::lock(&foreign);
        // A base may have dropped a member since it was looked up.
        if let Some((x, _)) = foreign.iter().find(|(x, o)| o.recs().rec(*x).is_none()) {
            return Err(Error::InvalidHandle(*x));
        }
        let (h, created) = self.recs().add_link_in(&mut locks, hash, t, &out, &foreign_members, false)?;
        if created {
            for (x, o) in &foreign {
                owners.push(*x, o, h);
            }
        }
        drop((owners, locks));
        self.noted_atom(Ok(h))
    }

    /// Adds every link of `batch`, in order, as [`add_link`](Self::add_link)
    /// would one by one, and returns their handles. A bulk path: the cache
    /// misses of several links overlap, and the shard locks are taken once.
    ///
    /// Every type and member is checked before anything is added: with an
    /// error, nothing of the batch is added. On a root space the batch holds
    /// every shard's write lock while it runs, so writers on other threads
    /// wait for it (and so do readers that lock: truth values, and incoming
    /// sets while child spaces exist); batches of a few thousand links keep
    /// those waits short. A child space (and a batch holding a StateLink or GrantLink, which
    /// replace or refuse by key) adds the links one by one after the
    /// check: there, a member that another thread extracts meanwhile stops
    /// the batch with the links before it added.
    pub fn add_links(&self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        if !self.is_root() || self.is_read_only() || batch.holds_keyed() {
            for (t, out) in batch.iter() {
                link_key(t, out, self)?;
                if let Some(&x) = out.iter().find(|&&x| !self.contains(x)) {
                    return Err(Error::InvalidHandle(x));
                }
            }
            return batch.iter().map(|(t, out)| self.add_link(t, out)).collect();
        }
        let (canon, hashes) = prepare_links(self.recs(), batch, self, false)?;
        if canon.is_empty() {
            return Ok(Vec::new());
        }
        let mut locks = self.store().lock(ShardMask::all());
        let added = self.recs().add_links_in(&mut locks, &canon, &hashes);
        drop(locks);
        self.noted_atoms(added)
    }

    /// [`noted_atom`](Self::noted_atom) of a batch's atoms.
    fn noted_atoms(&self, added: Result<Vec<Handle>>) -> Result<Vec<Handle>> {
        if let Ok(hs) = &added {
            for &h in hs {
                self.inner.watch.note(|| Change::Atom(h));
            }
        }
        added
    }

    /// Adds every node of `batch`, in order, as [`add_node`](Self::add_node)
    /// would one at a time, and returns them in the batch's order. As
    /// [`add_links`](Self::add_links) does for links, it takes the shard
    /// locks once and overlaps the nodes' cache misses. With an error (a
    /// type that is not a node type), nothing of the batch is added; a
    /// read-only space gives the nodes it holds and refuses at the first it
    /// lacks, as `add_node` does.
    pub fn add_nodes(&self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        if !self.is_root() || self.is_read_only() {
            for (t, _) in batch.iter() {
                node_type(t)?;
            }
            return batch.iter().map(|(t, name)| self.add_node(t, name)).collect();
        }
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let mut locks = self.store().lock(ShardMask::all());
        let added = self.recs().add_nodes_in(&mut locks, batch);
        drop(locks);
        self.noted_atoms(added)
    }

    /// Starts fetching what setting `h`'s truth value or values reads.
    pub(crate) fn prefetch_values(&self, h: Handle) {
        self.recs().prefetch_values(h);
    }

    /// Starts fetching the records of `atoms`, then the outgoing sets of
    /// the links among them, so that a walk over them (an incoming set)
    /// overlaps its cache misses instead of taking them one by one.
    /// Only the first [`PREFETCH_AHEAD`] are fetched: more would be evicted
    /// before the walk reached them; [`prefetch_ahead`](Self::prefetch_ahead)
    /// keeps the walk fed from there.
    pub(crate) fn prefetch(&self, atoms: &[Handle]) {
        let atoms = &atoms[..atoms.len().min(PREFETCH_AHEAD)];
        for &h in atoms {
            self.recs().prefetch_slot(h);
        }
        for &h in atoms {
            self.recs().prefetch_outgoing(h);
        }
    }

    /// In a walk over `atoms` (started by [`prefetch`](Self::prefetch)),
    /// at position `i`: starts fetching the record [`PREFETCH_AHEAD`]
    /// ahead, and the outgoing set half as far ahead, whose record came
    /// in meanwhile.
    #[inline]
    pub(crate) fn prefetch_ahead(&self, atoms: &[Handle], i: usize) {
        if let Some(&h) = atoms.get(i + PREFETCH_AHEAD) {
            self.recs().prefetch_slot(h);
        }
        if let Some(&h) = atoms.get(i + PREFETCH_AHEAD / 2) {
            if i + PREFETCH_AHEAD / 2 >= PREFETCH_AHEAD {
                self.recs().prefetch_outgoing(h);
            }
        }
    }

    /// The node of this type and name, if present.
    pub fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        self.find_visible(|r| r.find_node(r.hash_node(t, name), t, name))
    }

    /// The link of this type and outgoing set, if present.
    pub fn get_link(&self, t: Type, outgoing: &[Handle]) -> Option<Handle> {
        let out = link_key(t, outgoing, self).ok()?;
        self.find_visible(|r| r.find_link(r.hash_link(t, &out), t, &out))
    }

    /// The atom that `find` finds in the store of this space or of a space
    /// below it, if this space shows it.
    #[inline]
    fn find_visible(&self, find: impl Fn(&Records) -> Option<Handle>) -> Option<Handle> {
        if self.is_root() {
            return find(self.recs());
        }
        self.walk(|s| match find(s.recs()) {
            Some(h) if s == self || self.contains(h) => Visit::Found(h),
            _ => Visit::Descend,
        })
    }

    // ----- reading one atom -----

    /// Is `h` an atom of this space? Lock-free.
    #[inline]
    pub fn contains(&self, h: Handle) -> bool {
        self.owner(h).is_some()
    }

    /// The atom's type. Lock-free.
    #[inline]
    pub fn get_type(&self, h: Handle) -> Option<Type> {
        self.record(h).map(|r| r.ty())
    }

    /// Is the atom a link? Lock-free.
    #[inline]
    pub fn is_link(&self, h: Handle) -> bool {
        self.record(h).is_some_and(|r| r.is_link())
    }

    /// The node's name (`None` for links and invalid handles). Lock-free.
    #[inline]
    pub fn name(&self, h: Handle) -> Option<&str> {
        self.owner(h)?.recs().name(h)
    }

    /// The link's outgoing set (empty for nodes). Lock-free: outgoing sets
    /// never change, and their memory is never reused while the space lives.
    #[inline]
    pub fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        self.owner(h)?.recs().outgoing(h)
    }

    /// Number of atoms in the outgoing set.
    pub fn arity(&self, h: Handle) -> Option<usize> {
        self.outgoing(h).map(|o| o.len())
    }

    /// The links that contain the atom, each once, in no particular order:
    /// a copy, taken without a lock in a space without child spaces.
    #[inline]
    pub fn incoming(&self, h: Handle) -> Option<Incoming> {
        let mut links = SmallVec::new();
        if self.is_root() && !self.has_children() {
            match self.recs().incoming_copy(h, &mut links) {
                // A child space made meanwhile may have registered its links here.
                Some(live) if !self.has_children() => return live.then_some(Incoming(links)),
                _ => links.clear(),
            }
        }
        // The holder's set lists the links of every space that holds `h`.
        let o = self.owner(h)?;
        links.extend_from_slice(o.recs().own_incoming_in(&o.read_shard(h.shard()), h));
        links.retain(|l| self.contains(*l));
        Some(Incoming(links))
    }

    /// Number of links that contain the atom. Lock-free in a space without
    /// child spaces.
    #[inline]
    pub fn incoming_size(&self, h: Handle) -> Option<usize> {
        if self.is_root() && !self.has_children() {
            let size = self.recs().incoming_size(h);
            // A child space made meanwhile may have registered its links here.
            if !self.has_children() {
                return size;
            }
        }
        self.incoming(h).map(|i| i.len())
    }

    /// The links of type `t` that contain the atom.
    pub fn incoming_by_type(&self, h: Handle, t: Type) -> Vec<Handle> {
        let inc = self.incoming(h);
        inc.as_deref().unwrap_or(&[]).iter().copied().filter(|&l| self.get_type(l) == Some(t)).collect()
    }

    /// The truth value (the default one when none was set). Lock-free for
    /// atoms of a root space, but for count truth values and streams. A
    /// FormulaTruthValue is run: its reading is the truth value (the
    /// default one if it fails; [`get_tv_value`](Self::get_tv_value) gives
    /// the stream itself, whose reading reports the failure).
    #[inline]
    pub fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        if self.is_root() {
            let rec = self.recs().rec(h)?;
            if !rec.has_tv() {
                return Some(TruthValue::DEFAULT);
            }
            if let Some(tv) = self.recs().simple_tv(h) {
                return Some(tv);
            }
            // The guard goes at the `;`: a stream is read with no lock held.
            let entry = self.recs().get_tv_in(&self.read_shard(h.shard()), h);
            return entry.map(TvEntry::sampled);
        }
        self.tv_entry(h).map(TvEntry::sampled)
    }

    /// The truth value as a value: a truth value, or the FormulaTruthValue
    /// stream that computes it.
    pub fn get_tv_value(&self, h: Handle) -> Option<Value> {
        self.tv_entry(h).map(|e| match e {
            TvEntry::Tv(tv) => Value::Truth(tv),
            TvEntry::Stream(s) => Value::Stream(s),
        })
    }

    /// The truth value's entry, as this space keeps it, else as the base
    /// that shows `h` does. No lock is held when it returns: a stream's
    /// reading runs code that may change this space.
    fn tv_entry(&self, h: Handle) -> Option<TvEntry> {
        self.owner(h)?;
        self.view_path(h).into_iter().find_map(|s| s.recs().get_tv_in(&s.read_shard(h.shard()), h))
    }

    /// The value under `key`; under the truth-value key, the truth value.
    pub fn get_value(&self, h: Handle, key: Handle) -> Option<Value> {
        if self.is_tv_key(key) {
            return self.get_tv_value(h);
        }
        self.owner(h)?;
        self.value_through(h, key)
    }

    fn value_through(&self, h: Handle, key: Handle) -> Option<Value> {
        self.view_path(h).into_iter().find_map(|s| s.recs().get_value_in(&s.read_shard(h.shard()), h, key))
    }

    /// Keys and values of the atom, truth value excluded; a child's values
    /// override its bases' under the same key.
    pub fn key_values(&self, h: Handle) -> Vec<(Handle, Value)> {
        if self.owner(h).is_none() {
            return Vec::new();
        }
        let mut kvs: Vec<(Handle, Value)> = Vec::new();
        for s in self.view_path(h).into_iter().rev() {
            for (k, v) in s.recs().key_values_in(&s.read_shard(h.shard()), h) {
                match kvs.iter_mut().find(|(kk, _)| kk == k) {
                    Some(slot) => slot.1 = v.clone(),
                    None => kvs.push((*k, v.clone())),
                }
            }
        }
        kvs
    }

    // ----- changing one atom -----

    /// Whether `h` is a base atom seen from this child space (its values are
    /// then kept here, for this space alone).
    fn foreign(&self, h: Handle) -> Result<bool> {
        match self.owner(h) {
            None => Err(Error::InvalidHandle(h)),
            Some(o) => Ok(!std::ptr::eq(o, self)),
        }
    }

    /// Sets the truth value (the default one resets the atom's entry). On a base
    /// atom of a child space, the value is kept for the child alone.
    pub fn set_tv(&self, h: Handle, tv: TruthValue) -> Result<()> {
        self.writable("no truth value is changed")?;
        self.inner.watch.note(|| Change::Atom(h));
        // Replacing a root atom's simple truth value is one store; the lock
        // (out of line, so this stays small) is for the rest.
        if self.is_root() && self.recs().set_tv_lock_free(h, tv) {
            return Ok(());
        }
        self.set_tv_locked(h, tv)
    }

    #[inline(never)]
    fn set_tv_locked(&self, h: Handle, tv: TruthValue) -> Result<()> {
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_tv_in(&mut self.write_shard(h.shard()), h, tv, foreign)
    }

    /// Makes a FormulaTruthValue the atom's truth value: each reading of
    /// the truth value runs it (upstream's `cog-set-tv!` of a stream).
    pub fn set_tv_stream(&self, h: Handle, stream: StreamValue) -> Result<()> {
        self.writable("no truth value is changed")?;
        self.inner.watch.note(|| Change::Atom(h));
        if stream.stream_type() != crate::types::FORMULA_TRUTH_VALUE {
            return Err(Error::InvalidValue(format!("a truth value is a number pair or a FormulaTruthValue, not a {}", stream.stream_type().name())));
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_tv_stream_in(&mut self.write_shard(h.shard()), h, stream, foreign)
    }

    /// Atomically adds `n` to the atom's count and returns the new truth value.
    pub fn increment_count(&self, h: Handle, n: f64) -> Result<TruthValue> {
        self.writable("no truth value is changed")?;
        self.inner.watch.note(|| Change::Atom(h));
        let foreign = !self.is_root() && self.foreign(h)?;
        // Read before the lock: a base's truth value may be a stream, whose
        // reading runs code that may use this shard.
        let base_tv =
            if foreign { self.inner.bases.iter().find_map(|b| b.tv_entry(h)).map_or(TruthValue::DEFAULT, TvEntry::sampled) } else { TruthValue::DEFAULT };
        self.recs().increment_count_in(&mut self.write_shard(h.shard()), h, n, foreign, || base_tv)
    }

    /// Sets the value under `key`; under the truth-value key it sets the truth value.
    pub fn set_value(&self, h: Handle, key: Handle, v: Value) -> Result<()> {
        // The replaced value goes here, after the shard's lock.
        self.replace_value(h, key, v).map(drop)
    }

    /// [`set_value`](Self::set_value), giving back the value it replaced
    /// (none under the truth-value key), for the caller to drop where it
    /// likes: the loader drops them on its reading thread.
    pub(crate) fn replace_value(&self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        self.writable("no value is changed")?;
        v.check_shape()?;
        if self.is_tv_key(key) {
            return match v {
                Value::Stream(s) => self.set_tv_stream(h, s),
                v => self.set_tv(h, tv_of(&v)?),
            }
            .map(|()| None);
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.inner.watch.note(|| Change::Value(h, key));
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, Some(v), foreign)
    }

    /// Removes the value under `key` (upstream: setting a null value). In a
    /// child space this removes the child's own value; a base's shows again.
    pub fn remove_value(&self, h: Handle, key: Handle) -> Result<()> {
        self.writable("no value is changed")?;
        if self.is_tv_key(key) {
            return self.set_tv(h, TruthValue::DEFAULT);
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.inner.watch.note(|| Change::Value(h, key));
        // Named, not `_`: the removed value goes after the statement's
        // temporary, the shard's lock.
        let _removed = self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, None, foreign)?;
        Ok(())
    }

    // ----- removing -----

    /// Removes the atom. Without `recursive`, an atom that links contain is
    /// refused ([`Error::HasIncoming`]); with it, those links go first, even
    /// links other threads add meanwhile and links of child spaces. In a
    /// child space, extracting a base atom hides it (and, recursively, the
    /// links that contain it) from the child alone.
    pub fn extract(&self, h: Handle, recursive: bool) -> Result<()> {
        self.writable("no atom is extracted")?;
        self.extract_any(h, recursive)
    }

    /// [`extract`](Self::extract), read-only or not.
    fn extract_any(&self, h: Handle, recursive: bool) -> Result<()> {
        match self.extract_one(h) {
            Err(Error::HasIncoming { .. }) if recursive => {}
            done => return done,
        }
        // A work list, not recursion: links nest thousands deep.
        let mut work = vec![h];
        while let Some(&top) = work.last() {
            let result = if top == h || self.owner(top).is_some() {
                self.extract_one(top)
            } else {
                // A child space's link, registered with an atom here.
                self.space_of(top).map_or(Err(Error::InvalidHandle(top)), |sp| sp.extract_one(top))
            };
            match result {
                Ok(()) => {
                    work.pop();
                }
                Err(Error::HasIncoming { atom, incoming }) => {
                    let blocking = self.blocking_links(top);
                    if blocking.is_empty() {
                        return Err(Error::HasIncoming { atom, incoming });
                    }
                    work.extend(blocking);
                }
                // Gone already: reached twice, or extracted by another thread.
                Err(Error::InvalidHandle(_)) if top != h => {
                    work.pop();
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The links that keep `top` from being extracted from this space and
    /// can themselves be extracted.
    fn blocking_links(&self, top: Handle) -> Vec<Handle> {
        let holder = if self.recs().rec(top).is_some() {
            Some(self.clone())
        } else if self.owner(top).is_some() {
            // A base atom to hide: the links this space sees go first.
            return self.incoming(top).map(|i| i.to_vec()).unwrap_or_default();
        } else {
            self.space_of(top)
        };
        let Some(holder) = holder else { return Vec::new() };
        let links = holder.recs().own_incoming_in(&holder.read_shard(top.shard()), top).to_vec();
        links.into_iter().filter(|&l| self.space_of(l).is_some()).collect()
    }

    fn extract_one(&self, h: Handle) -> Result<()> {
        // Its text, while it can be read, for the recordings under way.
        let text = self.inner.watch.active().then(|| {
            let mut s = String::new();
            crate::sexpr::write_structure(self, h, &mut s).map(|()| s)
        });
        let done = if self.recs().rec(h).is_some() {
            self.extract_own(h)
        } else if !self.is_root() && self.owner(h).is_some() {
            self.hide(h)
        } else {
            Err(Error::InvalidHandle(h))
        };
        if let (Ok(()), Some(Ok(text))) = (&done, text) {
            self.inner.watch.note(|| Change::Removed(text));
        }
        done
    }

    /// Extracts an atom of this space's own store.
    fn extract_own(&self, h: Handle) -> Result<()> {
        // Outgoing sets never change, so the shards read here stay the right ones.
        if self.is_root() {
            let mask = ShardMask::of(self.recs().outgoing(h).ok_or(Error::InvalidHandle(h))?).with(h.shard());
            // The values go once the locks, the statement's temporary, have.
            let _values = self.recs().extract_in(&mut self.store().lock(mask), h)?;
            return Ok(());
        }
        let out = self.recs().outgoing(h).ok_or(Error::InvalidHandle(h))?;
        let mask = ShardMask::of(out).with(h.shard());
        let mut foreign: Vec<(Handle, AtomSpace)> = Vec::new();
        for &x in out {
            if self.recs().rec(x).is_none() && !foreign.iter().any(|(f, _)| *f == x) {
                if let Some(o) = self.inner.bases.iter().find_map(|b| b.holder(x)) {
                    foreign.push((x, o.clone()));
                }
            }
        }
        let mut locks = self.store().lock(mask);
        let mut owners = OwnerLocks::lock(&foreign);
        let values = self.recs().extract_in(&mut locks, h)?;
        for (x, o) in &foreign {
            owners.remove(*x, o, h);
        }
        drop((owners, locks));
        drop(values);
        Ok(())
    }

    /// Hides the base atom `x` from this child space, if no visible link contains it.
    fn hide(&self, x: Handle) -> Result<()> {
        let visible = self.incoming(x).map_or(0, |i| i.len());
        if visible > 0 {
            return Err(Error::HasIncoming { atom: x, incoming: visible });
        }
        let holder = self.holder(x).ok_or(Error::InvalidHandle(x))?;
        // This space's links take `x` in under this lock (`add_link` holds
        // it), so links of this space that arrived meanwhile are all listed.
        let mut sh = self.write_shard(x.shard());
        let mine = holder.recs().own_incoming_in(&holder.read_shard(x.shard()), x).iter().filter(|&&l| self.recs().rec(l).is_some()).count();
        if mine > 0 {
            return Err(Error::HasIncoming { atom: x, incoming: mine });
        }
        let values = self.recs().hide_in(&mut sh, x);
        self.inner.hides.store(true, Ordering::Release);
        drop(sh);
        drop(values);
        Ok(())
    }

    /// Removes every atom of this space (for a child space: its own atoms,
    /// the values it set on base atoms, and what it hid), and the links of
    /// child spaces that hold them. Handles of the removed atoms stay invalid.
    /// A read-only space is cleared too: read-only guards atoms and values
    /// against changes, not the space against its owner (as upstream's).
    pub fn clear(&self) {
        if self.has_live_descendants() {
            // Children's links hold atoms here: remove each the way extract does.
            for h in self.own_atoms() {
                let _ = self.extract_any(h, true);
            }
        }
        let mut locks = self.store().lock(ShardMask::all());
        if !self.is_root() {
            let memberships = foreign_memberships(self.store(), &self.inner.bases, |s| locks.shard_ref(s));
            for (l, x, o) in memberships {
                o.recs().inc_remove_in(&mut o.write_shard(x.shard()), x, l);
            }
        }
        let values: Vec<_> = (0..SHARDS).map(|s| self.recs().clear_shard(locks.shard(s), s)).collect();
        drop(locks);
        drop(values);
    }

    // ----- whole-space reads -----

    /// Atoms of type `t` (and its subtypes when `subtypes`). The iterator
    /// copies only the list of slot blocks (one entry per 64 atoms) and reads
    /// records lock-free; atoms added or removed meanwhile may or may not show.
    pub fn handles_by_type(&self, t: Type, subtypes: bool) -> Box<dyn Iterator<Item = Handle> + '_> {
        let own = self.own_by_type(t, subtypes);
        if self.is_root() {
            return Box::new(own);
        }
        // Every space below once (a handle lives in one store, so nothing
        // shows twice), with what this frame or a base hid filtered out.
        let mut below = Vec::new();
        self.walk(|s| {
            below.push(s);
            Visit::<()>::Descend
        });
        let hides = self.hides_on_path();
        let from_bases = below.into_iter().skip(1).flat_map(move |s| s.own_by_type(t, subtypes));
        Box::new(own.chain(from_bases.filter(move |&h| !hides || self.contains(h))))
    }

    /// The atoms of type `t` (and subtypes) in this space's own store.
    fn own_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        // One read lock per shard, and only the types the shard holds:
        // `Atom` with subtypes covers some 250 types. Sorted back to type
        // order (type ids ascend as `Type::subtypes` lists them).
        let mut blocks: Vec<(Type, usize, u32)> = Vec::new();
        for s in 0..SHARDS {
            let sh = self.read_shard(s);
            if subtypes {
                for ty in Records::types_in(&sh).filter(|ty| ty.is_a(t)) {
                    blocks.extend(Records::blocks_in(&sh, ty).iter().map(|&b| (ty, s, b)));
                }
            } else {
                blocks.extend(Records::blocks_in(&sh, t).iter().map(|&b| (t, s, b)));
            }
        }
        if subtypes {
            blocks.sort_by_key(|&(ty, s, _)| (ty.0, s));
        }
        blocks.into_iter().flat_map(move |(_, s, b)| self.recs().block_atoms(s, b))
    }

    /// Atoms of type `t` (or its subtypes) that no link contains.
    pub fn root_set_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        self.handles_by_type(t, subtypes).filter(move |&h| self.incoming_size(h) == Some(0))
    }

    /// Number of atoms.
    pub fn size(&self) -> usize {
        if self.is_root() {
            self.read_own().size()
        } else {
            self.handles_by_type(crate::types::ATOM, true).count()
        }
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        if self.is_root() {
            self.read_own().num_nodes()
        } else {
            // By the record: a foreign AST's leaf is a node of a link type.
            self.handles_by_type(crate::types::ATOM, true).filter(|&h| !self.is_link(h)).count()
        }
    }

    /// Number of links.
    pub fn num_links(&self) -> usize {
        if self.is_root() {
            self.read_own().num_links()
        } else {
            self.handles_by_type(crate::types::LINK, true).filter(|&h| self.is_link(h)).count()
        }
    }

    /// Number of atoms of type `t` (and its subtypes when `subtypes`).
    pub fn count_of_type(&self, t: Type, subtypes: bool) -> usize {
        if self.is_root() {
            self.read_own().count_of_type(t, subtypes)
        } else {
            self.handles_by_type(t, subtypes).count()
        }
    }

    /// Heap bytes held by this space's own store, by its own accounting.
    pub fn heap_bytes(&self) -> usize {
        self.store().heap_bytes()
    }

    /// Read-locks every shard, for consistent bulk reads at full speed
    /// ([`AtomRead`]). Writers wait until the guard is dropped, except
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

/// Maps atom `h` of `from` and every atom under it, members before the
/// links that hold them: `map` gets each atom, its type, and its name
/// (`Ok`) or its members' images (`Err`), and its `None` ends the walk with
/// `None`. A stack and a memo, not recursion: a chain of links may be
/// deeper than any stack, and a shared member is mapped once.
fn map_up(
    from: &AtomSpace,
    h: Handle,
    mut map: impl FnMut(Handle, Type, std::result::Result<&str, &[Handle]>) -> Result<Option<Handle>>,
) -> Result<Option<Handle>> {
    let t = from.get_type(h).ok_or(Error::InvalidHandle(h))?;
    if let Some(name) = from.name(h) {
        // A node, the usual case: no stack or memo.
        return map(h, t, Ok(name));
    }
    let mut done: HashMap<Handle, Handle> = HashMap::new();
    let mut todo = vec![h];
    let mut members = Vec::new();
    while let Some(&x) = todo.last() {
        if done.contains_key(&x) {
            todo.pop();
            continue;
        }
        let t = from.get_type(x).ok_or(Error::InvalidHandle(x))?;
        let image = match from.name(x) {
            Some(name) => map(x, t, Ok(name))?,
            None => {
                let out = from.outgoing(x).unwrap_or(&[]);
                let waiting = todo.len();
                todo.extend(out.iter().filter(|m| !done.contains_key(m)));
                if todo.len() > waiting {
                    continue;
                }
                members.clear();
                members.extend(out.iter().map(|m| done[m]));
                map(x, t, Err(&members))?
            }
        };
        let Some(image) = image else { return Ok(None) };
        done.insert(x, image);
        todo.pop();
    }
    Ok(done.get(&h).copied())
}
