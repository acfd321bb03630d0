//! Atoms taken out of an upstream RocksDB store, as upstream's
//! `delete` takes them: the atom's records, its values, its place in its
//! members' incoming index and in its alpha-equivalence hash list.
//!
//! Invariant: a delete is one write batch; an atom that links hold is
//! deleted only with `recursive`, and then with every link above it (a
//! work list, each once); nothing is written when the atom is not stored.

use atomweave::{AtomSpace, Handle};

use super::keys::{self, atom_key, content_key, incoming_key, incoming_link, incoming_prefix, values_prefix};
use super::read::aid_text;
use super::text::members_text;
use super::write::Batch;
use super::{backend, RocksStore};
use crate::{HashSet, Result, StoreError};

impl RocksStore {
    /// Deletes `h` from the store: `Some(found)`, or `None` when links hold
    /// it there and `recursive` is not set (nothing deleted).
    pub(super) fn delete_from_store(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<Option<bool>> {
        let Some(aid) = self.lookup(space, h)? else { return Ok(Some(false)) };
        let held = !self.scan(&incoming_prefix(aid, None))?.is_empty();
        if held && !recursive {
            return Ok(None);
        }
        // The atom and every link above it.
        let mut doomed = vec![aid];
        let mut seen: HashSet<u64> = HashSet::default();
        seen.insert(aid);
        let mut i = 0;
        while i < doomed.len() {
            for (k, _) in self.scan(&incoming_prefix(doomed[i], None))? {
                let link = incoming_link(&k)?;
                if seen.insert(link) {
                    doomed.push(link);
                }
            }
            i += 1;
        }
        let result = self.write(|s, b| doomed.iter().try_for_each(|&a| s.remove_atom(b, a)));
        // Deleted atoms' ids are gone: the cache forgets every id.
        self.forget_ids();
        result.map(|()| Some(true))
    }

    /// Puts the deletion of atom `aid`'s records into the batch.
    fn remove_atom(&mut self, b: &mut Batch, aid: u64) -> Result<()> {
        let record = self
            .db
            .get(atom_key(aid))
            .map_err(backend)?
            .ok_or_else(|| StoreError::Corrupt(format!("atom {} is in an incoming set but not stored", aid_text(aid))))?;
        let record = String::from_utf8(record).map_err(|_| StoreError::Corrupt(format!("atom {}'s text is not UTF-8", aid_text(aid))))?;
        let open = record.find('(').ok_or_else(|| StoreError::Corrupt(format!("atom {}'s record holds no s-expression", aid_text(aid))))?;
        let (hash, text) = record.split_at(open);
        let (type_name, members) = members_text(text)?;
        b.wb.delete(content_key(members.is_some(), text));
        b.wb.delete(atom_key(aid));
        for prefix in [values_prefix(aid), incoming_prefix(aid, None)] {
            for (k, _) in self.scan(&prefix)? {
                b.wb.delete(k);
            }
        }
        if let Some(members) = members {
            let mut seen = HashSet::default();
            for m in members.into_iter().filter(|m| seen.insert(*m)) {
                let link = m.starts_with('(') && members_text(m)?.1.is_some();
                if let Some(maid) = self.find_text(link, m)? {
                    b.wb.delete(incoming_key(maid, type_name, aid));
                }
            }
        }
        if !hash.is_empty() {
            self.remove_from_hash_list(b, hash.as_bytes(), aid)?;
        }
        Ok(())
    }

    /// Takes `aid` out of the SID list under upstream's hash key `h@...`.
    fn remove_from_hash_list(&mut self, b: &mut Batch, key: &[u8], aid: u64) -> Result<()> {
        let Some(list) = self.db.get(key).map_err(backend)? else { return Ok(()) };
        let sid = keys::sid(aid);
        let rest: Vec<&[u8]> = list.split(|&c| c == b' ').filter(|s| !s.is_empty() && *s != sid.as_slice()).collect();
        if rest.is_empty() {
            b.wb.delete(key);
        } else {
            let mut v = Vec::new();
            for s in rest {
                v.extend_from_slice(s);
                v.push(b' ');
            }
            b.wb.put(key, v);
        }
        Ok(())
    }
}
