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
use crate::table::{incremented, link_key, node_type, AtomTable};
use crate::types::Type;
use crate::value::{TruthValue, Value};

/// A borrowed part of a shard (a name, an outgoing or incoming set), holding
/// that shard's read lock until dropped. Keep it short-lived: writers to the
/// shard wait for it.
pub type Ref<'a, T> = parking_lot::MappedRwLockReadGuard<'a, T>;

/// A thread-safe AtomSpace. Cloning it is cheap and yields the same space
/// (like upstream's `AtomSpacePtr`); it is `Send + Sync`.
#[derive(Clone)]
pub struct AtomSpace {
    store: Arc<Store>,
}

impl Default for AtomSpace {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for AtomSpace {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.store, &other.store)
    }
}

impl Eq for AtomSpace {}

impl std::fmt::Debug for AtomSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomSpace({:p}, {} atoms)", Arc::as_ptr(&self.store), self.size())
    }
}

impl From<AtomTable> for AtomSpace {
    fn from(t: AtomTable) -> Self {
        AtomSpace { store: Arc::new(t.store) }
    }
}

impl AtomSpace {
    /// An empty space.
    pub fn new() -> Self {
        AtomSpace { store: Arc::new(Store::new()) }
    }

    /// The single-threaded table inside, if no other clone of this space exists.
    pub fn try_into_table(self) -> std::result::Result<AtomTable, AtomSpace> {
        Arc::try_unwrap(self.store).map(|store| AtomTable { store }).map_err(|store| AtomSpace { store })
    }

    #[inline]
    fn recs(&self) -> &Records {
        &self.store.recs
    }

    fn read_shard(&self, s: usize) -> RwLockReadGuard<'_, Shard> {
        self.store.read(s)
    }

    fn write_shard(&self, s: usize) -> RwLockWriteGuard<'_, Shard> {
        self.store.write(s)
    }

    // ----- adding and looking up -----

    /// Adds a node, or returns the existing one.
    pub fn add_node(&self, t: Type, name: &str) -> Result<Handle> {
        node_type(t)?;
        let hash = self.recs().hash_node(t, name);
        self.recs().add_node_in(&mut self.write_shard(Records::home_of_hash(hash)), hash, t, name)
    }

    /// Adds a link, or returns the existing one. Every member must be in the space.
    pub fn add_link(&self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        let out = link_key(t, outgoing)?;
        let hash = self.recs().hash_link(t, &out);
        let mut locks = self.store.lock(ShardMask::of(&out).with(Records::home_of_hash(hash)));
        self.recs().add_link_in(&mut locks, hash, t, &out)
    }

    /// The node of this type and name, if present.
    pub fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        let hash = self.recs().hash_node(t, name);
        self.recs().find_node(&self.read_shard(Records::home_of_hash(hash)), hash, t, name)
    }

    /// The link of this type and outgoing set, if present.
    pub fn get_link(&self, t: Type, outgoing: &[Handle]) -> Option<Handle> {
        let out = link_key(t, outgoing).ok()?;
        let hash = self.recs().hash_link(t, &out);
        self.recs().find_link(&self.read_shard(Records::home_of_hash(hash)), hash, t, &out)
    }

    // ----- reading one atom -----

    /// Is `h` an atom of this space?
    #[inline]
    pub fn contains(&self, h: Handle) -> bool {
        self.recs().rec(h).is_some()
    }

    /// The atom's type. Lock-free.
    #[inline]
    pub fn get_type(&self, h: Handle) -> Option<Type> {
        self.recs().rec(h).map(|r| r.ty())
    }

    /// Is the atom a link? Lock-free.
    #[inline]
    pub fn is_link(&self, h: Handle) -> bool {
        self.recs().rec(h).is_some_and(|r| r.is_link())
    }

    /// The node's name (`None` for links and invalid handles).
    pub fn name(&self, h: Handle) -> Option<Ref<'_, str>> {
        RwLockReadGuard::try_map(self.read_shard(h.shard()), |sh| self.recs().name_in(sh, h)).ok()
    }

    /// The link's outgoing set (empty for nodes).
    #[inline]
    pub fn outgoing(&self, h: Handle) -> Option<Ref<'_, [Handle]>> {
        RwLockReadGuard::try_map(self.read_shard(h.shard()), |sh| self.recs().outgoing_in(sh, h)).ok()
    }

    /// Number of atoms in the outgoing set.
    pub fn arity(&self, h: Handle) -> Option<usize> {
        self.outgoing(h).map(|o| o.len())
    }

    /// The links that contain the atom, each once, in no particular order.
    #[inline]
    pub fn incoming(&self, h: Handle) -> Option<Ref<'_, [Handle]>> {
        RwLockReadGuard::try_map(self.read_shard(h.shard()), |sh| self.recs().incoming_in(sh, h)).ok()
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
    /// atoms without one.
    #[inline]
    pub fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        let rec = self.recs().rec(h)?;
        if !rec.has_tv() {
            return Some(TruthValue::DEFAULT);
        }
        self.recs().get_tv_in(&self.read_shard(h.shard()), h)
    }

    /// The value under `key`.
    pub fn get_value(&self, h: Handle, key: Handle) -> Option<Value> {
        self.recs().get_value_in(&self.read_shard(h.shard()), h, key)
    }

    /// Keys and values of the atom, truth value excluded.
    pub fn key_values(&self, h: Handle) -> Vec<(Handle, Value)> {
        self.recs().key_values_in(&self.read_shard(h.shard()), h).to_vec()
    }

    // ----- changing one atom -----

    /// Sets the truth value; the default one frees its storage.
    pub fn set_tv(&self, h: Handle, tv: TruthValue) -> Result<()> {
        self.recs().set_tv_in(&mut self.write_shard(h.shard()), h, tv)
    }

    /// Atomically adds `n` to the atom's count and returns the new truth value.
    pub fn increment_count(&self, h: Handle, n: f64) -> Result<TruthValue> {
        let mut sh = self.write_shard(h.shard());
        let tv = incremented(self.recs().get_tv_in(&sh, h).ok_or(Error::InvalidHandle(h))?, n);
        self.recs().set_tv_in(&mut sh, h, tv)?;
        Ok(tv)
    }

    /// Sets the value under `key`.
    pub fn set_value(&self, h: Handle, key: Handle, v: Value) -> Result<()> {
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, Some(v))
    }

    /// Removes the value under `key` (upstream: setting a null value).
    pub fn remove_value(&self, h: Handle, key: Handle) -> Result<()> {
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, None)
    }

    // ----- removing -----

    /// Removes the atom. Without `recursive`, an atom that links contain is
    /// refused ([`Error::HasIncoming`]); with it, those links go first, even
    /// links other threads add meanwhile.
    pub fn extract(&self, h: Handle, recursive: bool) -> Result<()> {
        loop {
            match self.extract_one(h) {
                Err(Error::HasIncoming { .. }) if recursive => {}
                other => return other,
            }
            let inc: Vec<Handle> = self.incoming(h).map(|i| i.to_vec()).unwrap_or_default();
            for l in inc {
                match self.extract(l, true) {
                    Ok(()) | Err(Error::InvalidHandle(_)) => {}
                    Err(e) => return Err(e),
                }
            }
        }
    }

    fn extract_one(&self, h: Handle) -> Result<()> {
        // Outgoing sets never change, so the shards read here stay the right ones.
        let mask = ShardMask::of(&self.outgoing(h).ok_or(Error::InvalidHandle(h))?).with(h.shard());
        let mut locks = self.store.lock(mask);
        self.recs().extract_in(&mut locks, h)
    }

    /// Removes every atom. Handles of the removed atoms stay invalid.
    pub fn clear(&self) {
        let mut locks = self.store.lock(ShardMask::all());
        for s in 0..SHARDS {
            self.recs().clear_shard(locks.shard(s), s);
        }
    }

    // ----- whole-space reads -----

    /// Atoms of type `t` (and its subtypes when `subtypes`). The iterator
    /// copies only the list of slot blocks (one entry per 64 atoms) and reads
    /// records lock-free; atoms added or removed meanwhile may or may not show.
    pub fn handles_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        let mut blocks: Vec<(usize, u32)> = Vec::new();
        for t in query_types(t, subtypes) {
            for s in 0..SHARDS {
                blocks.extend(Records::blocks_in(&self.read_shard(s), t).iter().map(|&b| (s, b)));
            }
        }
        blocks.into_iter().flat_map(move |(s, b)| self.recs().block_atoms(s, b))
    }

    /// Number of atoms.
    pub fn size(&self) -> usize {
        self.read().size()
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.read().num_nodes()
    }

    /// Number of links.
    pub fn num_links(&self) -> usize {
        self.read().num_links()
    }

    /// Number of atoms of type `t` (and its subtypes when `subtypes`).
    pub fn count_of_type(&self, t: Type, subtypes: bool) -> usize {
        self.read().count_of_type(t, subtypes)
    }

    /// Heap bytes held by the space, by its own accounting.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes()
    }

    /// Read-locks every shard, for consistent bulk reads at full speed
    /// ([`AtomRead`]). Writers wait until the guard is dropped, and a thread
    /// holding it must not write to this space.
    pub fn read(&self) -> SpaceRead<'_> {
        SpaceRead { recs: self.recs(), guards: std::array::from_fn(|s| self.store.read(s)) }
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
