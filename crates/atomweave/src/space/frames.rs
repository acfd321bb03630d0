//! Frames: child spaces over base spaces. Which space owns an atom, what a
//! frame sees (the union of its bases, less what it hid), and copying an
//! atom up from a base.
//!
//! **Invariant:** a link is registered in the incoming set of each member
//! in the store that owns the member, whichever space made it, and
//! handles are unique across a hierarchy; a walk over the bases below a
//! frame is iterative, visiting each space once.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};
use crate::lock::WriteGuard;
use crate::store::{Records, Shard, Store, TvEntry};
use crate::types::Type;
use crate::value::TruthValue;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{OnceLock, Weak};

use crate::watch::Watch;

use super::{AtomSpace, Inner};

/// What a walk over the spaces below a frame does after visiting one.
pub(super) enum Visit<R> {
    Found(R),
    Descend,
    /// Skip this space's bases (they may still be reached on another path).
    Prune,
}

/// Write locks on the shards of base atoms' owners, for registering a
/// child's link in their incoming sets. Taken deepest store first, then by
/// store and shard, after the child's own locks: the one lock order of a
/// hierarchy is from children to bases.
pub(super) struct OwnerLocks<'a> {
    guards: Vec<(usize, usize, &'a AtomSpace, WriteGuard<'a, Shard>)>,
}

impl<'a> OwnerLocks<'a> {
    pub(super) fn lock(members: &'a [(Handle, AtomSpace)]) -> Self {
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
    pub(super) fn push(&mut self, x: Handle, owner: &AtomSpace, l: Handle) {
        let (o, sh) = self.guard(x, owner);
        o.recs().inc_push_in(sh, x, l);
    }

    pub(super) fn remove(&mut self, x: Handle, owner: &AtomSpace, l: Handle) {
        let (o, sh) = self.guard(x, owner);
        o.recs().inc_remove_in(sh, x, l);
    }
}

/// The links of a child store that hold base atoms, as (link, base member,
/// the member's holder) triples; `shard` reads the store's shards as the
/// caller holds them.
pub(super) fn foreign_memberships<'s>(store: &Store, bases: &[AtomSpace], shard: impl Fn(usize) -> &'s Shard) -> Vec<(Handle, Handle, AtomSpace)> {
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

impl AtomSpace {
    pub(super) fn child(bases: &[&AtomSpace], scratch: bool) -> Result<AtomSpace> {
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
        if bases.iter().any(|b| b.inner.backed.load(Ordering::Acquire)) {
            hierarchy.backed.store(true, Ordering::Release);
        }
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
            backed: AtomicBool::new(false),
            backing: std::sync::RwLock::default(),
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

    /// Are there child spaces in this hierarchy? Until there are, a root
    /// takes its fast paths.
    #[inline]
    pub(super) fn has_children(&self) -> bool {
        self.inner.hierarchy.get().is_some_and(|h| h.live_children.load(Ordering::Acquire) > 0)
    }

    /// The space of the hierarchy that holds `h`, if `h` is visible from this one.
    #[inline]
    pub(super) fn owner(&self, h: Handle) -> Option<&AtomSpace> {
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
    pub(super) fn walk<'a, R>(&'a self, mut visit: impl FnMut(&'a AtomSpace) -> Visit<R>) -> Option<R> {
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
    pub(super) fn holder(&self, h: Handle) -> Option<&AtomSpace> {
        self.walk(|s| if s.recs().rec(h).is_some() { Visit::Found(s) } else { Visit::Descend })
    }

    /// Does `self` have `ancestor` among its bases, transitively?
    fn descends_from(&self, ancestor: &AtomSpace) -> bool {
        self != ancestor && self.walk(|s| if s == ancestor { Visit::Found(()) } else { Visit::Descend }).is_some()
    }

    /// The spaces from this one down to the one that holds `h`, each the
    /// first base of the one before that shows `h`: where a frame's own
    /// truth value or value of `h` overrides its bases'. `h` must be visible.
    pub(super) fn view_path(&self, h: Handle) -> SmallVec<[&AtomSpace; 4]> {
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
    pub(super) fn has_live_descendants(&self) -> bool {
        if !self.has_children() {
            return false;
        }
        let Some(hierarchy) = self.inner.hierarchy.get() else { return Default::default() };
        let children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.iter().filter_map(Weak::upgrade).any(|c| AtomSpace { inner: c }.descends_from(self))
    }

    /// Every atom this space's own store holds.
    pub(super) fn own_atoms(&self) -> Vec<Handle> {
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
    pub(super) fn hides_on_path(&self) -> bool {
        self.walk(|s| if s.inner.hides.load(Ordering::Acquire) { Visit::Found(()) } else { Visit::Descend }).is_some()
    }

    /// The record of `h` as seen from this space: its own, or a base's.
    #[inline]
    pub(super) fn record(&self, h: Handle) -> Option<crate::store::Rec> {
        match self.recs().rec(h) {
            Some(r) if self.is_root() => Some(r),
            None if self.is_root() => None,
            _ => self.owner_in_frame(h).and_then(|o| o.recs().rec(h)),
        }
    }

    /// The space that holds `h`: this one, a base, or a child space anywhere
    /// in the hierarchy (links of children are registered with base atoms).
    pub(super) fn space_of(&self, h: Handle) -> Option<AtomSpace> {
        if let Some(o) = self.raw_owner(h) {
            return Some(o.clone());
        }
        let Some(hierarchy) = self.inner.hierarchy.get() else { return Default::default() };
        let children = hierarchy.children.lock().unwrap_or_else(|e| e.into_inner());
        children.iter().filter_map(Weak::upgrade).find(|c| c.store.recs.rec(h).is_some()).map(|inner| AtomSpace { inner })
    }
}
