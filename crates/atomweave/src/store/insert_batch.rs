//! Adding many atoms in one call (the loader's and the bulk APIs' path):
//! the same steps as [`insert`](super::insert), with the cache misses of
//! many atoms overlapped by looking ahead.
//!
//! **Invariant:** a batch is all or nothing: every member is checked live
//! and every type checked before the first add, and an error midway takes
//! back the atoms the batch made.

use crate::batch::{LinkBatch, NodeBatch};
use crate::dedupe::Dedupe;
use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};

use super::locks::ShardAccess;
use super::record::Slot;
use super::{shard_of_hash, short, Records};

/// What a batch has added so far: every atom, in order, and the ones it
/// made, which are taken back if the batch fails midway.
struct Added {
    handles: Vec<Handle>,
    created: Vec<Handle>,
}

impl Added {
    fn with_capacity(n: usize) -> Self {
        Added { handles: Vec::with_capacity(n), created: Vec::new() }
    }

    /// Keeps one add's result (the atom, and whether it is new). An error
    /// (out of handles or arena space) takes back what the batch made (no
    /// link holds those: the members of a batch's links predate it), so
    /// that the batch adds nothing.
    fn keep(&mut self, recs: &Records, acc: &mut impl ShardAccess, added: Result<(Handle, bool)>) -> Result<()> {
        match added {
            Ok((h, new)) => {
                if new {
                    self.created.push(h);
                }
                self.handles.push(h);
                Ok(())
            }
            Err(e) => {
                for &h in self.created.iter().rev() {
                    let _ = recs.extract_in(acc, h);
                }
                Err(e)
            }
        }
    }
}

impl Records {
    /// Adds a prepared batch in order, as `add_link_in` would one by one,
    /// but looking ahead: the links `AHEAD` places on have their dedupe
    /// probe and members' slots fetched, those `AHEAD / 2` on their
    /// members' incoming blocks and their dedupe candidate's record, and
    /// those `AHEAD / 4` on the candidate's members, so the misses of
    /// several links overlap; `GROUP` links at a time, because a prefetch
    /// whose page walk misses holds up retirement, and only prefetches
    /// issued close together walk at once. Every member is checked live
    /// first, so a bad handle adds nothing. Each link has sequence sections of its own, as
    /// in `add_link_in`: lock-free incoming readers get through between
    /// links, where a section over many links would send them to the locks
    /// the batch holds until it ends. The caller holds every shard the
    /// batch touches.
    pub(crate) fn add_links_in(&self, acc: &mut impl ShardAccess, batch: &LinkBatch, hashes: &[u64]) -> Result<Vec<Handle>> {
        const AHEAD: usize = 32;
        const GROUP: usize = 8;
        // A candidate's record is fetched (at AHEAD / 2) a group before its
        // members are (at AHEAD / 4), and they a group before they are read.
        const _: () = assert!(AHEAD / 2 - AHEAD / 4 >= GROUP && AHEAD / 4 >= GROUP);
        // The check walks members whose slots are mostly not in cache, a few
        // instructions each: it fetches far ahead so that their misses
        // overlap instead of queueing (paired runs: about 6% of a
        // 1M-structure atom-bench insert).
        const CHECK_AHEAD: usize = 128;
        // Each member's slot, found here once for the look-ahead and the
        // incoming-set appends that follow.
        let members = batch.members();
        let mut slots: Vec<&Slot> = Vec::with_capacity(members.len());
        for (i, &x) in members.iter().enumerate() {
            if let Some(&y) = members.get(i + CHECK_AHEAD) {
                self.prefetch_slot(y);
            }
            let Some((slot, _)) = self.live_slot(x) else { return Err(Error::InvalidHandle(x)) };
            slots.push(slot);
        }
        let n = batch.len();
        let prefetch = |i: usize| {
            self.links_by_content[shard_of_hash(hashes[i])].prefetch(short(hashes[i]));
            slots[batch.range(i)].iter().take(8).for_each(|&slot| crate::prefetch(slot as *const Slot));
        };
        for i in 0..n.min(AHEAD) {
            prefetch(i);
        }
        let mut added = Added::with_capacity(n);
        for i in 0..n {
            if i % GROUP == 0 {
                for j in (i + AHEAD..i + AHEAD + GROUP).take_while(|&j| j < n) {
                    prefetch(j);
                }
                for j in (i + AHEAD / 2..i + AHEAD / 2 + GROUP).take_while(|&j| j < n) {
                    self.prefetch_link_late(hashes[j], batch.outgoing(j), &slots[batch.range(j)]);
                }
                // The candidate's record came with the late look-ahead, a group before.
                for j in (i + AHEAD / 4..i + AHEAD / 4 + GROUP).take_while(|&j| j < n) {
                    self.prefetch_candidate_contents(&self.links_by_content, hashes[j]);
                }
            }
            let (out, out_slots) = (batch.outgoing(i), &slots[batch.range(i)]);
            let sections = self.seq_sections(out, |_| true);
            let added_one = self.insert_link(acc, hashes[i], batch.types()[i], out, |j, _| Some(out_slots[j]), false);
            drop(sections);
            added.keep(self, acc, added_one)?;
        }
        Ok(added.handles)
    }

    /// Adds a batch of nodes in order, as `add_node_in` would one by one,
    /// looking ahead as `add_links_in` does: the nodes `AHEAD` places on
    /// have their dedupe probe fetched, those `AHEAD / 2` on the record of
    /// their dedupe candidate, and those `AHEAD / 4` on its name, so that
    /// a lookup's three dependent misses overlap with other nodes'. With an
    /// error midway, the nodes the batch made are taken back. The caller
    /// holds every shard.
    pub(crate) fn add_nodes_in(&self, acc: &mut impl ShardAccess, batch: &NodeBatch) -> Result<Vec<Handle>> {
        for &t in batch.types() {
            crate::types::node_type(t)?;
        }
        let hashes: Vec<u64> = batch.iter().map(|(t, name)| self.hash_node(t, name)).collect();
        let n = batch.len();
        self.nodes_ahead(&hashes, None);
        let mut added = Added::with_capacity(n);
        for (i, (t, node_name)) in batch.iter().enumerate() {
            self.nodes_ahead(&hashes, Some(i));
            let s = shard_of_hash(hashes[i]);
            let before = acc.shard(s).nodes;
            let added_one = self.add_node_in(acc.shard(s), hashes[i], t, node_name, false);
            let new = acc.shard(s).nodes != before;
            added.keep(self, acc, added_one.map(|h| (h, new)))?;
        }
        Ok(added.handles)
    }

    /// Each node of `batch` this store holds, found without a lock (another
    /// thread may be adding meanwhile: a node added meanwhile may or may
    /// not be found), or `None`; looking ahead as `add_nodes_in` does.
    pub(crate) fn find_nodes(&self, batch: &NodeBatch, found: &mut Vec<Option<Handle>>) {
        let hashes: Vec<u64> = batch.iter().map(|(t, name)| self.hash_node(t, name)).collect();
        self.nodes_ahead(&hashes, None);
        found.clear();
        found.extend(batch.iter().enumerate().map(|(i, (t, name))| {
            self.nodes_ahead(&hashes, Some(i));
            self.find_node(hashes[i], t, name)
        }));
    }

    /// The look-ahead of a walk over nodes with these content hashes, before
    /// the walk (`None`) and as it reaches node `i`: the dedupe probes of
    /// the nodes `AHEAD` places on are fetched, the records of the
    /// candidates `AHEAD / 2` on, and the names of those `AHEAD / 4` on.
    #[inline]
    fn nodes_ahead(&self, hashes: &[u64], i: Option<usize>) {
        const AHEAD: usize = 32;
        let probe = |j: usize| self.nodes_by_content[shard_of_hash(hashes[j])].prefetch(short(hashes[j]));
        let Some(i) = i else {
            (0..hashes.len().min(AHEAD)).for_each(probe);
            return;
        };
        if i + AHEAD < hashes.len() {
            probe(i + AHEAD);
        }
        if let Some(&h) = hashes.get(i + AHEAD / 2) {
            let s = shard_of_hash(h);
            self.nodes_by_content[s].prefetch_candidate_in_line(short(h), |l| self.records[s].prefetch(l as usize));
        }
        if let Some(&h) = hashes.get(i + AHEAD / 4) {
            let s = shard_of_hash(h);
            self.nodes_by_content[s].prefetch_candidate_in_line(short(h), |l| self.prefetch_contents(Handle::new(s, l)));
        }
    }

    /// Starts fetching the name or members of the dedupe candidate for
    /// `hash` in `table` (`nodes_by_content` or `links_by_content`), which
    /// the atom being added is compared with; the candidate's record should
    /// be in cache.
    #[inline]
    fn prefetch_candidate_contents(&self, table: &[Dedupe; SHARDS], hash: u64) {
        let s = shard_of_hash(hash);
        table[s].prefetch_candidate(short(hash), |l| self.prefetch_contents(Handle::new(s, l)));
    }

    /// The second look ahead of `add_links_in`, once the first has brought
    /// the slots and probe entry in: the incoming-set blocks the
    /// link will append to, and the record of a dedupe candidate.
    #[inline]
    fn prefetch_link_late(&self, hash: u64, out: &[Handle], slots: &[&Slot]) {
        let s = shard_of_hash(hash);
        self.links_by_content[s].prefetch_candidate(short(hash), |slot| self.records[s].prefetch(slot as usize));
        for (&x, slot) in out.iter().zip(slots).take(8) {
            self.prefetch_append(x, slot);
        }
    }
}
