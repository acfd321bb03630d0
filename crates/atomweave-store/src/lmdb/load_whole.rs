//! Every stored atom and value loaded into a space, in one pass over the
//! `atoms` table in id order.
//!
//! Invariant: ids are dense and a link's id is above its members', so a
//! chunk of records is added after everything it holds: its nodes in one
//! `add_nodes`, its links a level at a time in one `add_links` each (in id
//! order, one at a time, where a StateLink or GrantLink, added by key, is
//! among them); a member id not below its link's is damage, reported.

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch, TruthValue, Type};
use heed::RoTxn;

use super::layout::{members_of, split_record, value_key_ids};
use super::{backend, LmdbStore};
use crate::{HashMap, Result, StoreError};

/// Atom records read and added at a time by [`LmdbStore::load_whole`].
const LOAD_CHUNK: usize = 16384;

/// Levels of fewer links than this are added a link at a time.
const SMALL_LEVEL: usize = 8;

/// An atom record of the store, read.
struct Stored<'r> {
    id: u64,
    t: Type,
    link: bool,
    tv: TruthValue,
    /// The name, or the members' ids.
    body: &'r [u8],
}

impl<'r> Stored<'r> {
    fn name(&self) -> Result<&'r str> {
        std::str::from_utf8(self.body).map_err(|_| StoreError::Corrupt(format!("atom {}'s name", self.id)))
    }

    /// A link's members as atoms (`ids` a scratch list; `members_of`
    /// refuses ids not below the link's): all added before it.
    fn members(&self, handle_of: &[u32], ids: &mut Vec<u64>, out: &mut Vec<Handle>) -> Result<()> {
        members_of(self.id, self.body, ids)?;
        out.clear();
        for &m in ids.iter() {
            match handle_of.get(m as usize) {
                Some(&raw) if raw != u32::MAX => out.push(Handle::from_u32(raw)),
                _ => return Err(StoreError::Corrupt(format!("link {} holds atom {m}, which is not stored before it", self.id))),
            }
        }
        Ok(())
    }

    /// Adds the link on its own.
    fn add_link(&self, space: &AtomSpace, handle_of: &[u32], ids: &mut Vec<u64>, out: &mut Vec<Handle>) -> Result<Handle> {
        self.members(handle_of, ids, out)?;
        Ok(space.add_link(self.t, out)?)
    }
}

/// Adds a chunk of records (in id order: members before the links that
/// hold them, in this chunk or an earlier one, whose atoms `handle_of`
/// gives) to `space`, entering their atoms in `handle_of`: the nodes in one
/// `add_nodes`, the links a level at a time (a level's members all lie
/// below it) in one `add_links` each, so that the space's cache misses
/// overlap, then the truth values in id order. A chunk holding a StateLink
/// or GrantLink, whose adding replaces or refuses by key, is added in id
/// order, one atom at a time.
fn add_chunk(space: &AtomSpace, chunk: &[Stored<'_>], handle_of: &mut [u32]) -> Result<()> {
    let mut members: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    if chunk.iter().any(|rec| rec.t.is_added_by_key()) {
        for rec in chunk {
            let h = if rec.link { rec.add_link(space, handle_of, &mut members, &mut out)? } else { space.add_node(rec.t, rec.name()?)? };
            if !rec.tv.is_default() {
                space.set_tv(h, rec.tv)?;
            }
            handle_of[rec.id as usize] = h.to_u32();
        }
        return Ok(());
    }
    let mut nodes = NodeBatch::new();
    for rec in chunk.iter().filter(|rec| !rec.link) {
        nodes.push(rec.t, rec.name()?);
    }
    let mut added = space.add_nodes(&nodes)?.into_iter();
    for rec in chunk.iter().filter(|rec| !rec.link) {
        handle_of[rec.id as usize] = added.next().expect("one atom per node").to_u32();
    }
    // Each link's level: one above its highest member of this chunk's links.
    let first = chunk[0].id;
    let mut level: Vec<u32> = vec![0; chunk.len()];
    let mut links: Vec<usize> = Vec::new();
    for (i, rec) in chunk.iter().enumerate().filter(|(_, rec)| rec.link) {
        members_of(rec.id, rec.body, &mut members)?;
        let mut top = 0;
        for &m in members.iter().filter(|&&m| m >= first) {
            let j = chunk.partition_point(|r| r.id < m);
            if chunk.get(j).is_some_and(|r| r.id == m && r.link) {
                top = top.max(level[j]);
            }
        }
        level[i] = top + 1;
        links.push(i);
    }
    links.sort_by_key(|&i| level[i]);
    let mut batch = LinkBatch::new();
    for group in links.chunk_by(|&a, &b| level[a] == level[b]) {
        // A batch takes every shard's lock: a level of a few links (a
        // chain nested deep) goes one link at a time.
        if group.len() < SMALL_LEVEL {
            for &i in group {
                handle_of[chunk[i].id as usize] = chunk[i].add_link(space, handle_of, &mut members, &mut out)?.to_u32();
            }
            continue;
        }
        batch.clear();
        for &i in group {
            chunk[i].members(handle_of, &mut members, &mut out)?;
            batch.push(chunk[i].t, &out);
        }
        for (&i, h) in group.iter().zip(space.add_links(&batch)?) {
            handle_of[chunk[i].id as usize] = h.to_u32();
        }
    }
    for rec in chunk.iter().filter(|rec| !rec.tv.is_default()) {
        space.set_tv(Handle::from_u32(handle_of[rec.id as usize]), rec.tv)?;
    }
    Ok(())
}

impl LmdbStore {
    /// `load_atomspace`, in the read transaction `r`.
    pub(super) fn load_whole(&mut self, r: &RoTxn<'_>, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        // Ids are dense and members come first: one pass, a vector for the
        // map, as long as the highest id stored (not the next id the store
        // records, which damage could make anything).
        let last = match self.db.atoms.last(r).map_err(backend)? {
            Some((k, _)) => u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?),
            None => 0,
        };
        let len = last
            .checked_add(1)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= u32::MAX as usize)
            .ok_or_else(|| StoreError::Corrupt(format!("atom id {last} is beyond what a store makes")))?;
        let mut handle_of: Vec<u32> = Vec::new();
        handle_of.try_reserve_exact(len).map_err(|e| StoreError::Corrupt(format!("atom id {last} would need a table the memory cannot hold ({e})")))?;
        handle_of.resize(len, u32::MAX);
        let mut n = 0u64;
        let mut chunk: Vec<Stored<'_>> = Vec::with_capacity(LOAD_CHUNK);
        let mut iter = self.db.atoms.iter(r).map_err(backend)?;
        loop {
            chunk.clear();
            for entry in iter.by_ref().take(LOAD_CHUNK) {
                let (k, v) = entry.map_err(backend)?;
                let id = u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?);
                if id as usize >= handle_of.len() {
                    return Err(StoreError::Corrupt(format!("atom {id} is past the highest id stored")));
                }
                let (code, link, tv, body) = split_record(id, v)?;
                chunk.push(Stored { id, t: self.types.type_of(code)?, link, tv, body });
            }
            if chunk.is_empty() {
                break;
            }
            add_chunk(space, &chunk, &mut handle_of)?;
            for rec in &chunk {
                self.ids.insert(Handle::from_u32(handle_of[rec.id as usize]), rec.id);
            }
            n += chunk.len() as u64;
            progress(n);
        }
        let mut known: HashMap<u64, Handle> = HashMap::default();
        let values = self.db.values;
        for entry in values.iter(r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (id, key_id) = value_key_ids(k)?;
            let h = Handle::from_u32(
                *handle_of
                    .get(id as usize)
                    .filter(|&&x| x != u32::MAX)
                    .ok_or_else(|| StoreError::Corrupt(format!("a value of atom {id}, which is not stored")))?,
            );
            if let Some(&raw) = handle_of.get(key_id as usize).filter(|&&x| key_id != 0 && x != u32::MAX) {
                known.insert(key_id, Handle::from_u32(raw));
            }
            let bytes = v.to_vec();
            self.set_loaded(r, space, h, key_id, &bytes, &mut known)?;
        }
        progress(n);
        Ok(n)
    }
}
