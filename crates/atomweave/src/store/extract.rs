//! Removing atoms: one atom with an empty incoming set, or a whole shard.
//!
//! **Invariant:** a removed atom leaves no trace a reader could find (its
//! dedupe entry, truth value, values and incoming-set registrations go
//! with its record), and its values are handed back to be dropped outside
//! the lock.

use std::sync::atomic::Ordering;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::handle::Handle;

use super::incoming::{Distinct, SeqWrite};
use super::locks::ShardAccess;
use super::record::BLOCK;
use super::slots::lane;
use super::{KeyValues, Records, Shard};

impl Records {
    /// Extracts an atom that has no incoming links, and gives back its
    /// values, for the caller to drop once it has let go of the locks (see
    /// `set_value_in`). The caller holds the atom's shard and the shards of
    /// its outgoing set.
    pub(crate) fn extract_in(&self, acc: &mut impl ShardAccess, h: Handle) -> Result<KeyValues> {
        let rec = self.rec(h).ok_or(Error::InvalidHandle(h))?;
        let s = h.shard();
        let recs = &self.records[s];
        let sh = acc.shard(s);
        let incoming = sh.incoming(self.inc_store(s), h.local()).len();
        if incoming > 0 {
            return Err(Error::HasIncoming { atom: h, incoming });
        }
        let view = self.view(s);
        let local = h.local();
        let hash = view.hash(local);
        // From before the link stops being visible until it has left its
        // members' incoming sets, lock-free readers of those sets wait.
        let sections = self.seq_sections(if rec.is_link() { view.out(rec) } else { &[] }, |x| self.rec(x).is_some());
        if rec.is_link() {
            self.links_by_content[s].remove(&mut sh.link_book, hash, local);
        } else {
            self.nodes_by_content[s].remove(&mut sh.node_book, hash, local);
        }
        if rec.has_tv() {
            self.tv_remove(sh, s, local);
        }
        let values = if rec.has_values() { sh.values.remove(&local).unwrap_or_default() } else { KeyValues::new() };
        sh.lane_slots(lane(), rec.ty()).live -= 1;
        let slot = recs.get(h.local() as usize).expect("slot of a live atom");
        slot.rec.store(0, Ordering::Release);
        if rec.is_link() {
            sh.links -= 1;
            let out = view.out(rec);
            // Members of base spaces: the caller unregisters the link from their owners.
            for x in Distinct::of(out).map(|i| out[i]) {
                if self.rec(x).is_some() {
                    acc.shard(x.shard()).inc_remove(self.inc_store(x.shard()), x.local(), h);
                }
            }
        } else {
            sh.nodes -= 1;
        }
        drop(sections);
        Ok(values)
    }

    /// Empties shard `s` (held by the caller), and gives back its values,
    /// for the caller to drop once it has let go of the locks (see
    /// `set_value_in`). Slot numbers keep counting up so old handles stay
    /// dead.
    pub(crate) fn clear_shard(&self, sh: &mut Shard, s: usize) -> HashMap<u32, KeyValues, FixedState> {
        // Most shards of a small space are empty: resetting them would
        // reallocate their tables for nothing.
        if sh.is_empty() {
            return HashMap::default();
        }
        let _seq = SeqWrite::begin(&self.inc_seq, 1 << s);
        // Only the slots this store used: a child's slot range is sparse,
        // and touching all of it would make it resident.
        let recs = &self.records[s];
        let blocks = sh.by_type.iter().flat_map(|ts| ts.blocks.iter().flat_map(|&b| b..b + BLOCK));
        for l in blocks.chain(sh.overlay.iter().copied()) {
            if let Some(w) = recs.get(l as usize) {
                w.rec.store(0, Ordering::Release);
                w.inc.store(0, Ordering::Relaxed);
            }
        }
        self.nodes_by_content[s].clear(&mut sh.node_book);
        self.links_by_content[s].clear(&mut sh.link_book);
        let values = std::mem::take(&mut sh.values);
        *sh = Shard { names_end: sh.names_end, outgoing_end: sh.outgoing_end, ..Shard::default() };
        values
    }
}
