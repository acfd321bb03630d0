//! [`AtomTable`]: the raw, single-threaded layer (the seeds' "AtomTable").

use std::borrow::Cow;

use crate::batch::{LinkBatch, NodeBatch};
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::order;
use crate::read::{sealed, AtomRead, AtomSource};
use crate::sink::AtomSink;
use crate::store::{AllShards, Records, Shard, ShardAccess, Store};
use crate::types::{node_type, Type};
use crate::value::{TruthValue, Value};

/// Checks a link type and puts the outgoing set in canonical order: unordered
/// links keep their members in content order (`order`), so `(Set A B)` and
/// `(Set B A)` are one atom, with the same outgoing set in every space.
pub(crate) fn link_key<'o>(t: Type, out: &'o [Handle], c: &(impl AtomSource + ?Sized)) -> Result<Cow<'o, [Handle]>> {
    if !t.is_link() {
        return Err(Error::NotALinkType(t));
    }
    if t.is_unordered() && !order::is_sorted(c, out) {
        let mut v = out.to_vec();
        order::sort(c, &mut v);
        Ok(Cow::Owned(v))
    } else {
        Ok(Cow::Borrowed(out))
    }
}

/// The truth value a value under the truth-value key stands for.
pub(crate) fn tv_of(v: &Value) -> Result<TruthValue> {
    v.as_truth().ok_or_else(|| Error::InvalidValue(format!("the truth-value key holds truth values only, not {}", v.value_type())))
}

/// Puts a batch in canonical form (see `link_key`; `c` reads the
/// members' contents) with each link's content hash, checking every
/// type before anything is added. A batch
/// already canonical (no unordered link out of order) is used as it is;
/// with `trust_order` (a table, given the loader's batch) it is taken
/// to be, unchecked.
pub(crate) fn prepare_links<'b>(recs: &Records, batch: &'b LinkBatch, c: &impl AtomSource, trust_order: bool) -> Result<(Cow<'b, LinkBatch>, Vec<u64>)> {
    let mut hashes = Vec::with_capacity(batch.len());
    let mut reordered = false;
    for (t, out) in batch.iter() {
        if !t.is_link() {
            return Err(Error::NotALinkType(t));
        }
        reordered |= t.is_unordered() && !trust_order && !crate::order::is_sorted(c, out);
        hashes.push(recs.hash_link(t, out));
    }
    if !reordered {
        return Ok((Cow::Borrowed(batch), hashes));
    }
    let mut canon = LinkBatch::with_capacity(batch.len(), batch.members().len());
    hashes.clear();
    for (t, out) in batch.iter() {
        let key = link_key(t, out, c)?;
        hashes.push(recs.hash_link(t, &key));
        canon.push(t, &key);
    }
    Ok((Cow::Owned(canon), hashes))
}

/// A single-threaded atom table: every write takes `&mut self`, so nothing is
/// locked and reads ([`AtomRead`]) return plain slices.
///
/// It holds the same structure as [`AtomSpace`](crate::AtomSpace) and converts
/// into one for free; use it to build or bulk-load a space on one thread.
pub struct AtomTable {
    pub(crate) store: Store,
}

impl Default for AtomTable {
    fn default() -> Self {
        Self::new()
    }
}

impl sealed::Access for AtomTable {
    #[inline]
    fn recs(&self) -> &Records {
        &self.store.recs
    }

    #[inline]
    fn shard(&self, s: usize) -> &Shard {
        // SAFETY: the table owns its store outright and every mutation goes
        // through `&mut self`, so while `&self` lives no shard is written.
        unsafe { &*self.store.shards[s].data_ptr() }
    }
}

impl AtomTable {
    /// An empty table.
    pub fn new() -> Self {
        AtomTable { store: Store::new() }
    }

    /// Adds a node, or returns the existing one.
    pub fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        self.writer().add_node(t, name)
    }

    /// Adds a link, or returns the existing one. Every member must be in the table.
    pub fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        self.writer().add_link(t, outgoing)
    }

    /// Adds every node of `batch`, in order, overlapping their cache misses;
    /// see [`AtomSpace::add_nodes`](crate::AtomSpace::add_nodes). With an
    /// error, nothing of the batch is added.
    pub fn add_nodes(&mut self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        self.writer().add_nodes(batch)
    }

    /// Adds every link of `batch`, in order, overlapping their cache misses;
    /// see [`AtomSpace::add_links`](crate::AtomSpace::add_links). With an
    /// error, nothing of the batch is added.
    pub fn add_links(&mut self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        self.writer().add_links(batch)
    }

    /// Removes the atom. Without `recursive`, an atom that links contain is
    /// refused ([`Error::HasIncoming`]); with it, those links go first.
    pub fn extract(&mut self, h: Handle, recursive: bool) -> Result<()> {
        let (recs, mut all) = self.store.split_mut();
        match recs.extract_in(&mut all, h) {
            Err(Error::HasIncoming { .. }) if recursive => {}
            done => return done.map(drop),
        }
        // A work list, not recursion: links nest thousands deep.
        let mut work = vec![h];
        while let Some(&top) = work.last() {
            match self.incoming(top) {
                Some(inc) if !inc.is_empty() => work.extend_from_slice(inc),
                Some(_) => {
                    let (recs, mut all) = self.store.split_mut();
                    recs.extract_in(&mut all, top)?;
                    work.pop();
                }
                None if top == h => return Err(Error::InvalidHandle(h)),
                // Reached twice through links sharing it: already gone.
                None => {
                    work.pop();
                }
            }
        }
        Ok(())
    }

    /// Sets the truth value (the default one resets the atom's entry).
    pub fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        self.writer().set_tv(h, tv)
    }

    /// Adds `n` to the atom's count and returns the new truth value.
    pub fn increment_count(&mut self, h: Handle, n: f64) -> Result<TruthValue> {
        let tv = AtomRead::get_tv(self, h).ok_or(Error::InvalidHandle(h))?.incremented(n);
        self.set_tv(h, tv)?;
        Ok(tv)
    }

    /// Sets the value under `key`; under the truth-value key it sets the truth value.
    pub fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        self.writer().replace_value(h, key, v).map(drop)
    }

    /// Removes the value under `key` (upstream: setting a null value).
    pub fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        self.writer().remove_value(h, key)
    }

    /// Removes every atom. Handles of the removed atoms stay invalid.
    pub fn clear(&mut self) {
        self.store.clear();
        for s in 0..crate::handle::SHARDS {
            self.store.free_retired(s);
        }
    }

    /// Heap bytes held by the table, by its own accounting.
    pub fn heap_bytes(&self) -> usize {
        self.store.heap_bytes()
    }

    /// [`heap_bytes`](Self::heap_bytes) by what holds them: records, hashes,
    /// dedupe tables, names, outgoing and incoming sets, truth values,
    /// values, type lists.
    pub fn heap_parts(&self) -> [(&'static str, usize); 9] {
        self.store.heap_parts()
    }

    /// The table's writes, through its records and shards borrowed apart.
    pub(crate) fn writer(&mut self) -> TableWriter<'_> {
        let (recs, shards) = self.store.split_mut();
        TableWriter { recs, shards }
    }

    /// A writer, and a finder that another thread looks nodes up in
    /// meanwhile, without a lock (the records are made for lock-free
    /// readers: a space's are read so while its shards are written).
    pub(crate) fn writer_and_finder(&mut self) -> (TableWriter<'_>, NodeFinder<'_>) {
        let (recs, shards) = self.store.split_mut();
        (TableWriter { recs, shards }, NodeFinder(recs))
    }
}

/// An [`AtomTable`] borrowed for writing: every write of the table is made
/// here. A loader holds one while its reading thread holds a [`NodeFinder`]
/// of the same table.
pub(crate) struct TableWriter<'t> {
    recs: &'t Records,
    shards: AllShards<'t>,
}

impl sealed::Access for TableWriter<'_> {
    #[inline]
    fn recs(&self) -> &Records {
        self.recs
    }

    #[inline]
    fn shard(&self, s: usize) -> &Shard {
        self.shards.shard_ref(s)
    }
}

impl AtomSink for TableWriter<'_> {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        node_type(t)?;
        let hash = self.recs.hash_node(t, name);
        let s = Records::home_of_hash(hash);
        self.recs.add_node_in(self.shards.shard(s), hash, t, name, false)
    }

    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        let out = link_key(t, outgoing, &*self)?;
        let hash = self.recs.hash_link(t, &out);
        self.recs.prefetch_link(hash, &out);
        self.recs.add_link_in(&mut self.shards, hash, t, &out, &[], false).map(|(h, _)| h)
    }

    fn add_nodes(&mut self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        self.recs.add_nodes_in(&mut self.shards, batch)
    }

    fn add_links(&mut self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        // Within one table, equal content is one atom, so the order the
        // loader gave on placeholders is the order on atoms.
        let (canon, hashes) = prepare_links(self.recs, batch, &*self, batch.member_order_trusted())?;
        self.recs.add_links_in(&mut self.shards, &canon, &hashes)
    }

    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        if self.recs.set_tv_lock_free(h, tv) {
            return Ok(());
        }
        self.recs.set_tv_in(self.shards.shard(h.shard()), h, tv, false)
    }

    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        self.replace_value(h, key, v).map(drop)
    }

    /// Gives back the value it replaced (none under the truth-value key)
    /// for the caller to drop where it likes: the loader drops them on its
    /// reading thread.
    fn replace_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        v.check_shape()?;
        if self.is_tv_key(key) {
            return self.set_tv(h, tv_of(&v)?).map(|()| None);
        }
        self.recs.set_value_in(self.shards.shard(h.shard()), h, key, Some(v), false)
    }

    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        if self.is_tv_key(key) {
            return self.set_tv(h, TruthValue::DEFAULT);
        }
        self.recs.set_value_in(self.shards.shard(h.shard()), h, key, None, false).map(drop)
    }

    fn contains(&self, h: Handle) -> bool {
        AtomRead::contains(self, h)
    }

    fn prefetch_values(&self, h: Handle) {
        self.recs.prefetch_values(h);
    }
}

/// Finds nodes of an [`AtomTable`] without a lock, while a
/// [`TableWriter`] of it adds on another thread.
#[derive(Clone, Copy)]
pub(crate) struct NodeFinder<'t>(&'t Records);

impl NodeFinder<'_> {
    /// The atom of each node of `batch` the table holds, `None` for the
    /// others (also those added meanwhile, or being added).
    pub(crate) fn find(&self, batch: &NodeBatch, found: &mut Vec<Option<Handle>>) {
        self.0.find_nodes(batch, found);
    }
}
