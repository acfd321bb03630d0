//! [`AtomSpace`]: the thread-safe layer.
//!
//! Types, arities and liveness are read without locks. Names, outgoing and
//! incoming sets and values are read under the owning shard's read lock and
//! returned as guards ([`Ref`]); [`AtomSpace::read`] read-locks every shard
//! once for bulk work. Writes lock only the shards they touch.

use std::sync::Arc;

use parking_lot::{RwLockReadGuard, RwLockWriteGuard};

use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};
use crate::read::{query_types, sealed, AtomRead};
use crate::store::{Records, Shard, ShardAccess, ShardMask, Store};
use crate::table::{incremented, link_key, node_type, tv_of, AtomTable};
use crate::types::Type;
use crate::value::{TruthValue, Value};

/// A borrowed part of a shard (a name, an outgoing or incoming set), holding
/// that shard's read lock until dropped. Keep it short-lived: writers to the
/// shard wait for it.
pub type Ref<'a, T> = parking_lot::MappedRwLockReadGuard<'a, T>;

/// A thread-safe AtomSpace. Cloning it is cheap and yields the same space
/// (like upstream's `AtomSpacePtr`); it is `Send + Sync`.
///
/// A space made with [`AtomSpace::new_child`] is a *frame*: it sees the union
/// of its base spaces, adds new atoms into itself only, keeps truth values and
/// values it sets on base atoms for itself, and extracting a base atom hides
/// it from this space alone. Handles are unique across a whole hierarchy.
#[derive(Clone)]
pub struct AtomSpace {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    bases: Vec<AtomSpace>,
}

/// An incoming set: borrowed from the store for a space without bases,
/// gathered from the frames for a child space.
pub enum Incoming<'a> {
    /// In place, under the shard's read lock.
    Shared(Ref<'a, [Handle]>),
    /// Gathered from a child space and its bases.
    Owned(Vec<Handle>),
}

impl std::ops::Deref for Incoming<'_> {
    type Target = [Handle];
    fn deref(&self) -> &[Handle] {
        match self {
            Incoming::Shared(r) => r,
            Incoming::Owned(v) => v,
        }
    }
}

impl Default for AtomSpace {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for AtomSpace {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for AtomSpace {}

impl std::fmt::Debug for AtomSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomSpace({:p}, {} atoms, {} bases)", Arc::as_ptr(&self.inner), self.size(), self.inner.bases.len())
    }
}

impl From<AtomTable> for AtomSpace {
    fn from(t: AtomTable) -> Self {
        AtomSpace { inner: Arc::new(Inner { store: t.store, bases: Vec::new() }) }
    }
}

impl AtomSpace {
    /// An empty space.
    pub fn new() -> Self {
        AtomTable::new().into()
    }

    /// An empty child space (frame) over `bases`, which must belong to one
    /// hierarchy (descend from the same root space).
    pub fn new_child(bases: &[&AtomSpace]) -> Result<AtomSpace> {
        let Some(first) = bases.first() else {
            return Err(Error::Hierarchy("a child space needs at least one base space".into()));
        };
        if bases.iter().any(|b| !b.store().same_hierarchy(first.store())) {
            return Err(Error::Hierarchy("the base spaces of a child space must descend from one root space".into()));
        }
        let store = Store::child_of(first.store());
        Ok(AtomSpace { inner: Arc::new(Inner { store, bases: bases.iter().map(|&b| b.clone()).collect() }) })
    }

    /// The base spaces (empty for a root space).
    pub fn bases(&self) -> &[AtomSpace] {
        &self.inner.bases
    }

    /// The single-threaded table inside, if this is a root space and no other
    /// clone of it (or child of it) exists.
    pub fn try_into_table(self) -> std::result::Result<AtomTable, AtomSpace> {
        if !self.is_root() {
            return Err(self);
        }
        Arc::try_unwrap(self.inner).map(|inner| AtomTable { store: inner.store }).map_err(|inner| AtomSpace { inner })
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

    fn read_shard(&self, s: usize) -> RwLockReadGuard<'_, Shard> {
        self.store().read(s)
    }


    fn write_shard(&self, s: usize) -> RwLockWriteGuard<'_, Shard> {
        self.store().write(s)
    }

    /// The space of the hierarchy that holds `h`, as seen from this one.
    #[inline]
    fn owner(&self, h: Handle) -> Option<&AtomSpace> {
        if self.recs().rec(h).is_some() {
            return Some(self);
        }
        if self.is_root() {
            return None;
        }
        self.owner_in_bases(h)
    }

    /// The frame walk of [`owner`](Self::owner), kept out of line so the
    /// common case (an atom of this space) inlines into its callers.
    #[inline(never)]
    fn owner_in_bases(&self, h: Handle) -> Option<&AtomSpace> {
        if self.recs().is_hidden(h) {
            return None;
        }
        self.inner.bases.iter().find_map(|b| b.owner(h))
    }

    /// The record of `h` as seen from this space: its own, or a base's.
    #[inline]
    fn record(&self, h: Handle) -> Option<crate::store::Rec> {
        match self.recs().rec(h) {
            Some(r) => Some(r),
            None if self.is_root() => None,
            None => self.owner_in_bases(h).and_then(|o| o.recs().rec(h)),
        }
    }

    /// Is the hierarchy under this space a chain (at most one base each)?
    fn is_chain(&self) -> bool {
        match self.inner.bases.as_slice() {
            [] => true,
            [b] => b.is_chain(),
            _ => false,
        }
    }

    // ----- adding and looking up -----

    /// Adds a node, or returns the existing one (in this space or a base).
    pub fn add_node(&self, t: Type, name: &str) -> Result<Handle> {
        node_type(t)?;
        let hash = self.recs().hash_node(t, name);
        let s = Records::home_of_hash(hash);
        if !self.is_root() {
            if let Some(h) = self.recs().find_node(&self.read_shard(s), hash, t, name) {
                return Ok(h);
            }
            if let Some(h) = self.inner.bases.iter().find_map(|b| b.get_node(t, name)) {
                self.recs().unhide_in(&mut self.write_shard(h.shard()), h);
                return Ok(h);
            }
        }
        self.recs().add_node_in(&mut self.write_shard(s), hash, t, name)
    }

    /// Adds a link, or returns the existing one (in this space or a base).
    /// Every member must be in the space.
    pub fn add_link(&self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        let out = link_key(t, outgoing)?;
        let hash = self.recs().hash_link(t, &out);
        let home = Records::home_of_hash(hash);
        let mut foreign = Vec::new();
        if !self.is_root() {
            for &x in out.iter() {
                if self.recs().rec(x).is_none() {
                    if self.owner(x).is_none() {
                        return Err(Error::InvalidHandle(x));
                    }
                    foreign.push(x);
                }
            }
            if let Some(h) = self.recs().find_link(&self.read_shard(home), hash, t, &out) {
                return Ok(h);
            }
            // Only links made of base atoms alone can be in a base.
            if foreign.len() == out.len() {
                if let Some(h) = self.inner.bases.iter().find_map(|b| b.get_link(t, &out)) {
                    self.recs().unhide_in(&mut self.write_shard(h.shard()), h);
                    return Ok(h);
                }
            }
        }
        let mut locks = self.store().lock(ShardMask::of(&out).with(home));
        self.recs().add_link_in(&mut locks, hash, t, &out, &foreign)
    }

    /// The node of this type and name, if present.
    pub fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        let hash = self.recs().hash_node(t, name);
        let own = self.recs().find_node(&self.read_shard(Records::home_of_hash(hash)), hash, t, name);
        if own.is_some() || self.is_root() {
            return own;
        }
        self.inner.bases.iter().filter_map(|b| b.get_node(t, name)).find(|&h| !self.recs().is_hidden(h))
    }

    /// The link of this type and outgoing set, if present.
    pub fn get_link(&self, t: Type, outgoing: &[Handle]) -> Option<Handle> {
        let out = link_key(t, outgoing).ok()?;
        let hash = self.recs().hash_link(t, &out);
        let own = self.recs().find_link(&self.read_shard(Records::home_of_hash(hash)), hash, t, &out);
        if own.is_some() || self.is_root() {
            return own;
        }
        self.inner.bases.iter().filter_map(|b| b.get_link(t, &out)).find(|&h| !self.recs().is_hidden(h))
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

    /// The node's name (`None` for links and invalid handles).
    pub fn name(&self, h: Handle) -> Option<Ref<'_, str>> {
        let o = self.owner(h)?;
        RwLockReadGuard::try_map(o.read_shard(h.shard()), |sh| o.recs().name_in(sh, h)).ok()
    }

    /// The link's outgoing set (empty for nodes).
    #[inline]
    pub fn outgoing(&self, h: Handle) -> Option<Ref<'_, [Handle]>> {
        let o = self.owner(h)?;
        RwLockReadGuard::try_map(o.read_shard(h.shard()), |sh| o.recs().outgoing_in(sh, h)).ok()
    }

    /// Number of atoms in the outgoing set.
    pub fn arity(&self, h: Handle) -> Option<usize> {
        self.outgoing(h).map(|o| o.len())
    }

    /// The links that contain the atom, each once, in no particular order.
    #[inline]
    pub fn incoming(&self, h: Handle) -> Option<Incoming<'_>> {
        if self.is_root() {
            return RwLockReadGuard::try_map(self.read_shard(h.shard()), |sh| self.recs().incoming_in(sh, h))
                .ok()
                .map(Incoming::Shared);
        }
        self.owner(h)?;
        let mut links = Vec::new();
        self.gather_incoming(h, &mut links);
        links.retain(|&l| self.contains(l));
        links.sort_unstable();
        links.dedup();
        Some(Incoming::Owned(links))
    }

    fn gather_incoming(&self, h: Handle, out: &mut Vec<Handle>) {
        if !self.is_root() && self.recs().is_hidden(h) {
            return;
        }
        out.extend_from_slice(self.recs().own_incoming_in(&self.read_shard(h.shard()), h));
        for b in &self.inner.bases {
            b.gather_incoming(h, out);
        }
    }

    /// Number of links that contain the atom.
    pub fn incoming_size(&self, h: Handle) -> Option<usize> {
        self.incoming(h).map(|i| i.len())
    }

    /// The links of type `t` that contain the atom.
    pub fn incoming_by_type(&self, h: Handle, t: Type) -> Vec<Handle> {
        let inc = self.incoming(h);
        inc.as_deref().unwrap_or(&[]).iter().copied().filter(|&l| self.get_type(l) == Some(t)).collect()
    }

    /// The truth value (the default one when none was set). Lock-free for
    /// atoms of a root space that have none.
    #[inline]
    pub fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        if self.is_root() {
            let rec = self.recs().rec(h)?;
            if !rec.has_tv() {
                return Some(TruthValue::DEFAULT);
            }
            return self.recs().get_tv_in(&self.read_shard(h.shard()), h);
        }
        self.owner(h)?;
        self.tv_through(h)
    }

    /// The truth value as this space keeps it, else as the base that shows `h` does.
    fn tv_through(&self, h: Handle) -> Option<TruthValue> {
        if let Some(tv) = self.recs().get_tv_in(&self.read_shard(h.shard()), h) {
            return Some(tv);
        }
        self.inner.bases.iter().find(|b| b.contains(h)).and_then(|b| b.tv_through(h))
    }

    /// Is `key` the truth-value key? Checked before any shard is locked.
    fn is_tv_key(&self, key: Handle) -> bool {
        // The type test is lock-free and settles almost every call.
        self.get_type(key) == Some(crate::types::PREDICATE_NODE) && self.name(key).as_deref() == Some(crate::sexpr::TV_KEY)
    }

    /// The value under `key`; under the truth-value key, the truth value.
    pub fn get_value(&self, h: Handle, key: Handle) -> Option<Value> {
        if self.is_tv_key(key) {
            return self.get_tv(h).map(Value::Truth);
        }
        self.owner(h)?;
        self.value_through(h, key)
    }

    fn value_through(&self, h: Handle, key: Handle) -> Option<Value> {
        if let Some(v) = self.recs().get_value_in(&self.read_shard(h.shard()), h, key) {
            return Some(v);
        }
        if self.recs().rec(h).is_some() {
            return None;
        }
        self.inner.bases.iter().find(|b| b.contains(h)).and_then(|b| b.value_through(h, key))
    }

    /// Keys and values of the atom, truth value excluded; a child's values
    /// override its bases' under the same key.
    pub fn key_values(&self, h: Handle) -> Vec<(Handle, Value)> {
        if self.owner(h).is_none() {
            return Vec::new();
        }
        let mut kvs =
            if self.recs().rec(h).is_some() { Vec::new() } else { self.inner.bases.iter().find(|b| b.contains(h)).map(|b| b.key_values(h)).unwrap_or_default() };
        for (k, v) in self.recs().key_values_in(&self.read_shard(h.shard()), h) {
            match kvs.iter_mut().find(|(kk, _)| kk == k) {
                Some(slot) => slot.1 = v.clone(),
                None => kvs.push((*k, v.clone())),
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

    /// Sets the truth value; the default one frees its storage. On a base
    /// atom of a child space, the value is kept for the child alone.
    pub fn set_tv(&self, h: Handle, tv: TruthValue) -> Result<()> {
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_tv_in(&mut self.write_shard(h.shard()), h, tv, foreign)
    }

    /// Atomically adds `n` to the atom's count and returns the new truth value.
    pub fn increment_count(&self, h: Handle, n: f64) -> Result<TruthValue> {
        let foreign = !self.is_root() && self.foreign(h)?;
        let mut sh = self.write_shard(h.shard());
        let current = match self.recs().get_tv_in(&sh, h) {
            Some(tv) => tv,
            None if foreign => self.inner.bases.iter().find(|b| b.contains(h)).and_then(|b| b.tv_through(h)).unwrap_or_default(),
            None => return Err(Error::InvalidHandle(h)),
        };
        let tv = incremented(current, n);
        self.recs().set_tv_in(&mut sh, h, tv, foreign)?;
        Ok(tv)
    }

    /// Sets the value under `key`; under the truth-value key it sets the truth value.
    pub fn set_value(&self, h: Handle, key: Handle, v: Value) -> Result<()> {
        if self.is_tv_key(key) {
            return self.set_tv(h, tv_of(&v)?);
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, Some(v), foreign)
    }

    /// Removes the value under `key` (upstream: setting a null value). In a
    /// child space this removes the child's own value; a base's shows again.
    pub fn remove_value(&self, h: Handle, key: Handle) -> Result<()> {
        if self.is_tv_key(key) {
            return self.set_tv(h, TruthValue::DEFAULT);
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, None, foreign)
    }

    // ----- removing -----

    /// Removes the atom. Without `recursive`, an atom that links contain is
    /// refused ([`Error::HasIncoming`]); with it, those links go first, even
    /// links other threads add meanwhile. In a child space, extracting a base
    /// atom hides it (and, recursively, the links that contain it) from the
    /// child alone.
    pub fn extract(&self, h: Handle, recursive: bool) -> Result<()> {
        if !recursive {
            return self.extract_one(h);
        }
        // A work list, not recursion: links nest thousands deep.
        let mut work = vec![h];
        while let Some(&top) = work.last() {
            match self.extract_one(top) {
                Ok(()) => {
                    work.pop();
                }
                Err(Error::HasIncoming { .. }) => {
                    let inc = self.incoming(top).map(|i| i.to_vec()).unwrap_or_default();
                    work.extend(inc);
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

    fn extract_one(&self, h: Handle) -> Result<()> {
        if self.recs().rec(h).is_none() && !self.is_root() {
            return self.hide(h);
        }
        // Outgoing sets never change, so the shards read here stay the right ones.
        let mask = ShardMask::of(&self.outgoing(h).ok_or(Error::InvalidHandle(h))?).with(h.shard());
        let mut locks = self.store().lock(mask);
        self.recs().extract_in(&mut locks, h)
    }

    /// Hides the base atom `h` from this child space, if no visible link contains it.
    fn hide(&self, h: Handle) -> Result<()> {
        self.owner(h).ok_or(Error::InvalidHandle(h))?;
        // Holding the shard where this space registers its own links to `h`
        // keeps new ones out while the bases are checked (child before base
        // is the lock order).
        let mut sh = self.write_shard(h.shard());
        let mut links: Vec<Handle> = self.recs().own_incoming_in(&sh, h).to_vec();
        for b in &self.inner.bases {
            if let Some(inc) = b.incoming(h) {
                links.extend_from_slice(&inc);
            }
        }
        links.retain(|&l| self.contains(l));
        links.sort_unstable();
        links.dedup();
        if !links.is_empty() {
            return Err(Error::HasIncoming { atom: h, incoming: links.len() });
        }
        self.recs().hide_in(&mut sh, h);
        Ok(())
    }

    /// Removes every atom of this space (for a child space: its own atoms,
    /// the values it set on base atoms, and what it hid). Handles of the
    /// removed atoms stay invalid.
    pub fn clear(&self) {
        let mut locks = self.store().lock(ShardMask::all());
        for s in 0..SHARDS {
            self.recs().clear_shard(locks.shard(s), s);
        }
    }

    // ----- whole-space reads -----

    /// Atoms of type `t` (and its subtypes when `subtypes`). The iterator
    /// copies only the list of slot blocks (one entry per 64 atoms) and reads
    /// records lock-free; atoms added or removed meanwhile may or may not show.
    pub fn handles_by_type(&self, t: Type, subtypes: bool) -> Box<dyn Iterator<Item = Handle> + '_> {
        let mut blocks: Vec<(usize, u32)> = Vec::new();
        for t in query_types(t, subtypes) {
            for s in 0..SHARDS {
                blocks.extend(Records::blocks_in(&self.read_shard(s), t).iter().map(|&b| (s, b)));
            }
        }
        let own = blocks.into_iter().flat_map(move |(s, b)| self.recs().block_atoms(s, b));
        if self.is_root() {
            return Box::new(own);
        }
        let from_bases = self.inner.bases.iter().flat_map(move |b| b.handles_by_type(t, subtypes));
        let visible = from_bases.filter(move |&h| !self.recs().is_hidden(h));
        if self.is_chain() {
            Box::new(own.chain(visible))
        } else {
            // Bases that share an ancestor would show its atoms twice.
            let mut seen = std::collections::HashSet::new();
            Box::new(own.chain(visible).filter(move |&h| seen.insert(h)))
        }
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
            self.handles_by_type(crate::types::NODE, true).count()
        }
    }

    /// Number of links.
    pub fn num_links(&self) -> usize {
        if self.is_root() {
            self.read_own().num_links()
        } else {
            self.handles_by_type(crate::types::LINK, true).count()
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
    /// ([`AtomRead`]). Writers wait until the guard is dropped, and a thread
    /// holding it must not write to this space. `None` for a child space:
    /// its atoms are spread over several stores.
    pub fn read(&self) -> Option<SpaceRead<'_>> {
        self.is_root().then(|| self.read_own())
    }

    fn read_own(&self) -> SpaceRead<'_> {
        SpaceRead { recs: self.recs(), guards: std::array::from_fn(|s| self.store().read(s)) }
    }
}

/// A read-locked view of a whole [`AtomSpace`]; see [`AtomSpace::read`].
pub struct SpaceRead<'a> {
    recs: &'a Records,
    guards: [RwLockReadGuard<'a, Shard>; SHARDS],
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
