//! A whole space stored into an empty store, every table appended in key
//! order (filled pages, no splits, no lookups), with memory that grows by
//! little more than an id per atom.
//!
//! Invariant: such a store is complete or empty. It holds the process
//! lock exclusively from its first transaction to its last, and until the
//! last index is written a marker in `meta` says the store is incomplete;
//! a failure, or opening a store that still has the marker, empties it.
//!
//! Ids are given so that most tables come out in key order by themselves:
//! nodes first, sorted by their `nodes` key, so that table is appended
//! along with the records; then links, each after its members; then the
//! values, in id order. Only the `links` and `incoming` entries come in
//! another order: they go through a [`Spill`] (sorted runs on disk) and are
//! appended at the end. Beyond the space this holds a store id (8 bytes)
//! and an order slot (4 bytes) per atom, a sort key per node (16 bytes)
//! while ids are given, and one run of entries per index.
//!
//! The space may change while it is stored: what was added after its atoms
//! were listed (a node, a link holding one, a value naming one) is not
//! stored, as a write after the store would not be.
//!
//! The marker is set with the first records; the store was empty before,
//! so emptying it loses nothing.

use std::io;
use std::path::Path;

use atomweave::AtomSource;
use atomweave::{types, AtomSpace, Handle, Type};
use heed::types::Bytes;
use heed::{Database, RwTxn};

use super::layout::{be, distinct, edge_data, encode_record, key_tail, link_key, put_varint, value_key, EDGE_LINK_BITS};
use super::{backend, LmdbStore};
use crate::spill::Spill;
use crate::{codec, live_values, HashSet, Result, StoreError, BATCH};

/// A node's place in `nodes` key order: the key's first 12 bytes as two
/// integers (most keys differ there; the whole keys break ties), and the
/// node's handle. 16 bytes a node, only while ids are given.
type NodeSort = (u64, u32, u32);

/// The first 12 bytes of a node key, zero-padded: ordered as the keys are.
fn head(code: u16, tail: &[u8]) -> (u64, u32) {
    let mut b = [0u8; 12];
    b[..2].copy_from_slice(&code.to_be_bytes());
    let n = tail.len().min(10);
    b[2..2 + n].copy_from_slice(&tail[..n]);
    let (hi, lo) = b.split_at(8);
    (u64::from_be_bytes(hi.try_into().expect("8 bytes")), u32::from_be_bytes(lo.try_into().expect("4 bytes")))
}

impl LmdbStore {
    /// `store_atomspace` into an empty store. A failure leaves it empty.
    pub(super) fn store_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let result = self.write_whole(space, progress);
        if result.is_err() {
            self.ids.clear();
            if self.indexing_unfinished()? {
                // The store was empty before: make it so again, now, rather than at the next open.
                self.discard_unfinished()?;
            }
        }
        result
    }

    fn write_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let dir = self.env.path().to_path_buf();
        let spill_failed = spill_failed(&dir);
        // Sized once, for every handle: grown by doubling, it would take up to twice that.
        let top = space.handles_by_type(types::ATOM, true).map(Handle::to_u32).max();
        self.ids.clear();
        if let Some(top) = top {
            self.ids.reserve(top, space.size());
        }
        let nodes = self.sorted_nodes(space)?;
        let mut order: Vec<Handle> = Vec::with_capacity(space.size());
        self.write_nodes(space, nodes, &mut order, progress)?;
        let (mut links, mut incoming) = (Spill::new(&dir), Spill::new(&dir));
        self.write_links(space, &mut order, &mut links, &mut incoming, progress)?;
        self.write_values(space, &order)?;
        let n = order.len() as u64;
        drop(order);
        let links = links.sorted().map_err(&spill_failed)?;
        self.append_all(self.db.links, links.map(|e| e.map(|(k, id)| (be(k), be(id))).map_err(&spill_failed)), true)?;
        let incoming = incoming.sorted().map_err(&spill_failed)?;
        let link_mask = (1u64 << EDGE_LINK_BITS) - 1;
        let edges = incoming.map(|e| e.map(|(m, e)| (be(m), edge_data((e >> EDGE_LINK_BITS) as u16, e & link_mask))).map_err(&spill_failed));
        self.append_all(self.db.incoming, edges, true)?;
        self.clear_indexing()?;
        progress(n);
        Ok(n)
    }

    /// Every node's sort key, sorted; the store marked incomplete and given
    /// a code for every type the space holds, in the first transaction.
    fn sorted_nodes(&mut self, space: &AtomSpace) -> Result<Vec<NodeSort>> {
        self.write(|s, w| {
            s.db.meta.put(w, b"indexing", std::process::id().to_string().as_bytes()).map_err(backend)?;
            Type::all().into_iter().filter(|&t| space.count_of_type(t, false) > 0).try_for_each(|t| s.code(w, t).map(drop))
        })?;
        let mut keys: Vec<NodeSort> = Vec::with_capacity(space.num_nodes());
        let mut last: Option<(Type, Option<u16>)> = None;
        // A foreign AST's leaves are nodes of a link type.
        let leaves = space.handles_by_type(types::FOREIGN_AST, true).filter(|&h| !space.is_link(h));
        for h in space.handles_by_type(types::NODE, true).chain(leaves) {
            // Gone since it was listed: not stored.
            let (Some(t), Some(name)) = (space.get_type(h), space.name(h)) else { continue };
            let code = match last {
                Some((lt, c)) if lt == t => c,
                _ => last.insert((t, self.types.code(t))).1,
            };
            // A type without a code came after the atoms were listed: so did the node.
            let Some(code) = code else { continue };
            let (hi, lo) = head(code, &key_tail(name));
            keys.push((hi, lo, h.to_u32()));
        }
        let tail = |&(_, _, raw): &NodeSort| key_tail(space.name(Handle::from_u32(raw)).unwrap_or_default());
        keys.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| tail(a).cmp(&tail(b))));
        Ok(keys)
    }

    /// Node records and `nodes` entries, in key order.
    fn write_nodes(&mut self, space: &AtomSpace, keys: Vec<NodeSort>, order: &mut Vec<Handle>, progress: &mut dyn FnMut(u64)) -> Result<()> {
        // Equal keys (hashed long names) make one entry listing every id: a
        // key's entry is written when a different key follows.
        let mut open: Option<(Vec<u8>, Vec<u8>)> = None;
        // A chunk's keys, one after another, and where each ends.
        let (mut key_bytes, mut key_ends): (Vec<u8>, Vec<(usize, u64)>) = (Vec::new(), Vec::new());
        for chunk in keys.chunks(BATCH) {
            key_bytes.clear();
            key_ends.clear();
            self.write(|s, w| {
                let mut records = s.db.atoms.iter_mut(w).map_err(backend)?;
                for &(_, _, raw) in chunk {
                    let h = Handle::from_u32(raw);
                    let (Some(t), Some(name)) = (space.get_type(h), space.name(h)) else { continue };
                    let code = s.record_code(t)?;
                    let id = s.new_id()?;
                    s.ids.insert(h, id);
                    order.push(h);
                    s.check_failure(t, name)?;
                    append_one(
                        &mut records,
                        &be(id),
                        &encode_record(code, false, space.get_tv(h).unwrap_or_default(), |r| r.extend_from_slice(name.as_bytes())),
                    )?;
                    key_bytes.extend_from_slice(&code.to_be_bytes());
                    key_bytes.extend_from_slice(&key_tail(name));
                    key_ends.push((key_bytes.len(), id));
                }
                drop(records);
                let mut entries = s.db.nodes.iter_mut(w).map_err(backend)?;
                let mut start = 0;
                for &(end, id) in &key_ends {
                    let key = &key_bytes[start..end];
                    start = end;
                    match &mut open {
                        Some((k, ids)) if k == key => ids.extend_from_slice(&id.to_le_bytes()),
                        _ => {
                            if let Some((k, ids)) = open.replace((key.to_vec(), id.to_le_bytes().to_vec())) {
                                append_one(&mut entries, &k, &ids)?;
                            }
                        }
                    }
                }
                Ok(())
            })?;
            progress(order.len() as u64);
        }
        if let Some((k, ids)) = open {
            self.write(|s, w| append_one(&mut s.db.nodes.iter_mut(w).map_err(backend)?, &k, &ids))?;
        }
        Ok(())
    }

    /// Link records, each after its members, their `links` and `incoming`
    /// entries into the spills.
    fn write_links(
        &mut self,
        space: &AtomSpace,
        order: &mut Vec<Handle>,
        links: &mut Spill,
        incoming: &mut Spill,
        progress: &mut dyn FnMut(u64),
    ) -> Result<()> {
        // Links that hold an atom added since the nodes were listed, and so were added since too.
        let mut late: HashSet<Handle> = HashSet::default();
        let mut roots = space.handles_by_type(types::LINK, true).peekable();
        let mut stack: Vec<(Handle, bool)> = Vec::new();
        let mut members: Vec<u64> = Vec::new();
        let dir = links.dir().to_path_buf();
        while roots.peek().is_some() {
            let before = order.len();
            self.write(|s, w| {
                let mut records = s.db.atoms.iter_mut(w).map_err(backend)?;
                while order.len() - before < BATCH {
                    let Some(root) = roots.next() else { break };
                    stack.push((root, false));
                    while let Some((x, expanded)) = stack.pop() {
                        if s.ids.contains_key(&x) || late.contains(&x) {
                            continue;
                        }
                        // A node without an id was added since the nodes were listed.
                        let (Some(t), Some(out)) = (space.get_type(x).filter(|t| t.is_link()), space.outgoing(x)) else {
                            late.insert(x);
                            continue;
                        };
                        if !expanded {
                            stack.push((x, true));
                            stack.extend(out.iter().filter(|m| !s.ids.contains_key(m)).map(|&m| (m, false)));
                            continue;
                        }
                        members.clear();
                        for m in out {
                            match s.ids.get(m) {
                                Some(&id) => members.push(id),
                                None => break,
                            }
                        }
                        // A type without a code came after the atoms were listed: so did the link.
                        let code = s.types.code(t);
                        let Some(code) = code.filter(|_| members.len() == out.len()) else {
                            late.insert(x);
                            continue;
                        };
                        if t.is_unordered() {
                            members.sort_unstable();
                        }
                        let id = s.new_id()?;
                        if id >> EDGE_LINK_BITS != 0 {
                            return Err(StoreError::Backend(format!("link id {id} is past what a whole-space store packs")));
                        }
                        s.ids.insert(x, id);
                        order.push(x);
                        append_one(
                            &mut records,
                            &be(id),
                            &encode_record(code, true, space.get_tv(x).unwrap_or_default(), |r| members.iter().for_each(|&m| put_varint(r, m))),
                        )?;
                        links.push((link_key(code, &members), id)).map_err(spill_failed(&dir))?;
                        for m in distinct(&members) {
                            incoming.push((m, u64::from(code) << EDGE_LINK_BITS | id)).map_err(spill_failed(&dir))?;
                        }
                    }
                }
                Ok(())
            })?;
            if order.len() > before {
                progress(order.len() as u64);
            }
        }
        Ok(())
    }

    /// Every atom's values but the truth value (in its record), in id
    /// order and by key id within an atom.
    fn write_values(&mut self, space: &AtomSpace, order: &[Handle]) -> Result<()> {
        let mut last = Vec::new();
        for chunk in order.chunks(BATCH) {
            let mut entries: Vec<([u8; 16], Vec<u8>)> = Vec::new();
            for &h in chunk {
                let id = self.ids[&h];
                let first = entries.len();
                for (k, v) in live_values(space, h) {
                    // The truth value is in the record; a key or a held atom added since the atoms were listed is not stored.
                    let Some(&key_id) = self.ids.get(&k).filter(|_| !space.is_tv_key(k)) else { continue };
                    if !v.atoms().iter().all(|a| self.ids.contains_key(a)) {
                        continue;
                    }
                    let mut bytes = Vec::new();
                    codec::encode(&v, &mut bytes, &mut |a| Ok(self.ids[&a]))?;
                    entries.push((value_key(id, key_id), bytes));
                }
                entries[first..].sort_unstable_by_key(|e| e.0);
            }
            if !entries.is_empty() {
                self.write(|s, w| append(w, s.db.values, entries.into_iter().map(Ok), &mut last, false))?;
            }
        }
        Ok(())
    }
}

/// A spill's failure, as the store reports it.
fn spill_failed(dir: &Path) -> impl Fn(io::Error) -> StoreError + '_ {
    move |e| StoreError::Backend(format!("cannot sort index entries in {}: {e}", dir.display()))
}

/// Appends entries in key order through one cursor that stays at the end
/// (no descent from the root per entry). In `dups` tables a key equal to
/// the one before (`last`, kept across calls) adds a duplicate.
fn append<K: AsRef<[u8]>, V: AsRef<[u8]>>(
    w: &mut RwTxn<'_>,
    db: Database<Bytes, Bytes>,
    entries: impl Iterator<Item = Result<(K, V)>>,
    last: &mut Vec<u8>,
    dups: bool,
) -> Result<()> {
    let mut cursor = db.iter_mut(w).map_err(backend)?;
    for entry in entries {
        let (k, v) = entry?;
        let (k, v) = (k.as_ref(), v.as_ref());
        let flags = if dups && last == k { heed::PutFlags::APPEND_DUP } else { heed::PutFlags::APPEND };
        put_at_end(&mut cursor, flags, k, v)?;
        if dups {
            last.clear();
            last.extend_from_slice(k);
        }
    }
    Ok(())
}

/// Appends one entry, after every key in the table, through `cursor`.
fn append_one(cursor: &mut heed::RwIter<'_, Bytes, Bytes>, k: &[u8], v: &[u8]) -> Result<()> {
    put_at_end(cursor, heed::PutFlags::APPEND, k, v)
}

fn put_at_end(cursor: &mut heed::RwIter<'_, Bytes, Bytes>, flags: heed::PutFlags, k: &[u8], v: &[u8]) -> Result<()> {
    // SAFETY: nothing read through the cursor is held across the append.
    unsafe { cursor.put_current_with_options::<Bytes>(flags, k, v) }.map_err(backend)
}

/// Index entries per write transaction when writing them in order.
const INDEX_BATCH: usize = 1 << 16;

impl LmdbStore {
    fn clear_indexing(&mut self) -> Result<()> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let mut w = env.write_txn().map_err(backend)?;
        self.db.meta.delete(&mut w, b"indexing").map_err(backend)?;
        w.commit().map_err(backend)
    }

    /// Did a first whole-space store stop before finishing? Asked holding
    /// the lock: a store still running would hold it exclusively, so the
    /// marker is this process's failed one or a dead process's.
    pub(super) fn indexing_unfinished(&self) -> Result<bool> {
        let _lock = self.shared_lock()?;
        let r = self.env.read_txn().map_err(backend)?;
        Ok(self.db.meta.get(&r, b"indexing").map_err(backend)?.is_some())
    }

    /// Appends entries in key order (and, in `dups` tables, data order
    /// within a key), a write transaction per [`INDEX_BATCH`].
    fn append_all<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        db: Database<Bytes, Bytes>,
        entries: impl Iterator<Item = Result<(K, V)>>,
        dups: bool,
    ) -> Result<()> {
        let mut last: Vec<u8> = Vec::new();
        let mut entries = entries.peekable();
        while entries.peek().is_some() {
            self.write(|_, w| append(w, db, entries.by_ref().take(INDEX_BATCH), &mut last, dups))?;
        }
        Ok(())
    }

    /// Empties a store whose first whole-space store did not finish: the
    /// store was empty when it began, its indexes and values were still
    /// held back, so nothing of it was ever complete.
    pub(super) fn discard_unfinished(&mut self) -> Result<()> {
        let _lock = self.shared_lock()?;
        let mut w = self.env.write_txn().map_err(backend)?;
        for db in [self.db.atoms, self.db.nodes, self.db.links, self.db.incoming, self.db.values] {
            db.clear(&mut w).map_err(backend)?;
        }
        self.db.meta.delete(&mut w, b"next_id").map_err(backend)?;
        self.db.meta.delete(&mut w, b"indexing").map_err(backend)?;
        w.commit().map_err(backend)?;
        self.next_id = 1;
        Ok(())
    }
}
