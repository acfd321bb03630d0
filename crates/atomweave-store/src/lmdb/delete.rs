//! Atoms taken out of the store.
//!
//! Invariant: an atom goes with everything that names it, in one
//! transaction: its record, its content key, its incoming edges and
//! values, the links above it (only with `recursive`; else nothing is
//! deleted), and every value that names a deleted atom, which could not
//! be loaded again.

use atomweave::{AtomSpace, Handle};
use heed::{RoTxn, RwTxn};

use super::layout::{be, edge_data, link_key, node_key, Record};
use super::{backend, LmdbStore};
use crate::{codec, HashSet, Result, StoreError};

impl LmdbStore {
    /// Deletes the atom (with `recursive`, the links above it) from the
    /// store in one transaction: whether the store held it, or `None` when
    /// links hold it and `recursive` is not set (nothing is deleted).
    pub(super) fn delete_from_store(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<Option<bool>> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let mut w = env.write_txn().map_err(backend)?;
        self.refresh_meta(&w)?;
        let found = {
            let r: &RoTxn<'_> = &w;
            self.lookup(r, space, h)?
        };
        let Some(id) = found else { return Ok(Some(false)) };
        // The atom and, with `recursive`, everything above it, tops first.
        let mut doomed = vec![id];
        let mut i = 0;
        while i < doomed.len() {
            let holders = self.holders(&w, &be(doomed[i]))?;
            if !holders.is_empty() && !recursive {
                return Ok(None);
            }
            let new: Vec<u64> = holders.into_iter().filter(|x| !doomed.contains(x)).collect();
            doomed.extend(new);
            i += 1;
        }
        for &x in doomed.iter().rev() {
            self.remove_stored(&mut w, x)?;
        }
        self.delete_values_naming(&mut w, &doomed)?;
        w.commit().map_err(backend)?;
        self.ids.clear();
        Ok(Some(true))
    }

    /// Removes stored atom `id`: record, content key, incoming edges, values.
    fn remove_stored(&mut self, w: &mut RwTxn<'_>, id: u64) -> Result<()> {
        let Some(rec) = self.record(w, id)? else { return Ok(()) };
        match &rec {
            Record::Node(t, name, _) => {
                let code = self.record_code(*t)?;
                let (key, hashed) = node_key(code, name);
                let db = self.db.nodes;
                let rest: Vec<u8> = if hashed {
                    db.get(w, &key).map_err(backend)?.unwrap_or_default().chunks_exact(8).filter(|c| *c != id.to_le_bytes()).flatten().copied().collect()
                } else {
                    Vec::new()
                };
                if rest.is_empty() {
                    db.delete(w, &key).map_err(backend)?;
                } else {
                    db.put(w, &key, &rest).map_err(backend)?;
                }
            }
            Record::Link(t, members, _) => {
                let code = self.record_code(*t)?;
                for &m in members {
                    self.db.incoming.delete_one_duplicate(w, &be(m), &edge_data(code, id)).map_err(backend)?;
                }
                self.db.links.delete_one_duplicate(w, &be(link_key(code, members)), &be(id)).map_err(backend)?;
            }
        }
        self.db.atoms.delete(w, &be(id)).map_err(backend)?;
        self.delete_values(w, id)
    }

    /// Deletes the values whose key is one of `gone`, or that hold one of
    /// `gone`: they could not be loaded again. A scan of every value; values
    /// other than truth values are few next to atoms, and deletes are rare.
    fn delete_values_naming(&self, w: &mut RwTxn<'_>, gone: &[u64]) -> Result<()> {
        let gone: HashSet<u64> = gone.iter().copied().collect();
        let mut all = self.db.values.iter_mut(w).map_err(backend)?;
        while let Some(entry) = all.next() {
            let (k, v) = entry.map_err(backend)?;
            let key =
                k.get(8..16).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes"))).ok_or_else(|| StoreError::Corrupt("a short value key".into()))?;
            let mut holds_gone = false;
            codec::decode(v, &mut |a| {
                holds_gone |= gone.contains(&a);
                Ok(Handle::from_u32(0))
            })?;
            if holds_gone || gone.contains(&key) {
                // SAFETY: nothing borrowed from the iterator is kept across the deletion.
                unsafe { all.del_current() }.map_err(backend)?;
            }
        }
        Ok(())
    }

    /// Deletes every value stored for atom `id`.
    pub(super) fn delete_values(&self, w: &mut RwTxn<'_>, id: u64) -> Result<()> {
        let mut old = self.db.values.prefix_iter_mut(w, &be(id)).map_err(backend)?;
        while let Some(entry) = old.next() {
            entry.map_err(backend)?;
            // SAFETY: nothing borrowed from the iterator is kept across the deletion.
            unsafe { old.del_current() }.map_err(backend)?;
        }
        Ok(())
    }
}
