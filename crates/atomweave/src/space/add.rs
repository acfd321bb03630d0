//! Adding atoms to a space, and finding them by content.
//!
//! **Invariant:** an atom a frame can already see (in itself or a base) is
//! found, not added again; a new atom goes into the space it is added to,
//! and every add is recorded for the change feeds under way.

use crate::batch::{LinkBatch, NodeBatch};
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::store::{Records, ShardMask};
use crate::table::{link_key, prepare_links};
use crate::types::{node_type, Type};
use crate::value::{AV_KEY, TV_KEY};
use crate::watch::{Change, Changes};

use super::frames::{OwnerLocks, Visit};
use super::AtomSpace;

/// How far ahead a walk over atoms fetches their records.
pub(crate) const PREFETCH_AHEAD: usize = 16;

impl AtomSpace {
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
    #[inline]
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
            // What a store holds is brought in as it is (`read_through.rs`).
            _ if super::read_through::in_fill() => self.add_link_as_is(t, outgoing),
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
        self.find_visible(|r| r.find_node(r.hash_node(t, name), t, name)).or_else(|| self.through_lookup(t, Some(name), &[]))
    }

    /// The link of this type and outgoing set, if present.
    pub fn get_link(&self, t: Type, outgoing: &[Handle]) -> Option<Handle> {
        let out = link_key(t, outgoing, self).ok()?;
        self.find_visible(|r| r.find_link(r.hash_link(t, &out), t, &out)).or_else(|| self.through_lookup(t, None, outgoing))
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
}
