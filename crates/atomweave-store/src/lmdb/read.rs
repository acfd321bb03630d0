//! Atoms found in the store by content, and stored atoms brought into a
//! space.
//!
//! Invariant: reads change nothing stored; an atom is added to a space
//! only after its members, and a stored atom found here enters the id
//! cache of the space it was looked up for, under the id it has.

use atomweave::{AtomSpace, Handle, TruthValue, Type};
use heed::types::Bytes;
use heed::{Database, RoTxn};

use super::layout::{be, link_key, members_of, node_key, split_record, value_key_ids, Record};
use super::{backend, LmdbStore};
use crate::{codec, Batching, HashMap, HashSet, Result, StoreError};

impl LmdbStore {
    pub(super) fn record(&self, r: &RoTxn<'_>, id: u64) -> Result<Option<Record>> {
        let Some(bytes) = self.db.atoms.get(r, &be(id)).map_err(backend)? else { return Ok(None) };
        let (code, link, tv, body) = split_record(id, bytes)?;
        let t = self.types.type_of(code)?;
        Ok(Some(if link {
            let mut members = Vec::new();
            members_of(id, body, &mut members)?;
            Record::Link(t, members, tv)
        } else {
            Record::Node(t, std::str::from_utf8(body).map_err(|_| StoreError::Corrupt(format!("atom {id}'s name")))?.to_string(), tv)
        }))
    }

    pub(super) fn stored_tv(&self, r: &RoTxn<'_>, id: u64) -> Result<TruthValue> {
        let bytes = self.db.atoms.get(r, &be(id)).map_err(backend)?.ok_or_else(|| StoreError::Corrupt(format!("atom {id} vanished")))?;
        Ok(split_record(id, bytes)?.2)
    }

    /// The id of content already stored, if any.
    pub(super) fn find(&self, r: &RoTxn<'_>, key: &[u8], hashed: bool, matches: impl Fn(&Record) -> bool, db: Database<Bytes, Bytes>) -> Result<Option<u64>> {
        let Some(v) = db.get(r, key).map_err(backend)? else { return Ok(None) };
        for c in v.chunks_exact(8) {
            let id = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            if !hashed || self.record(r, id)?.is_some_and(|rec| matches(&rec)) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The id of a stored link with this content, if any.
    pub(super) fn find_link(&mut self, r: &RoTxn<'_>, t: Type, members: &[u64]) -> Result<Option<u64>> {
        let Some(code) = self.types.code(t) else { return Ok(None) };
        let Some(ids) = self.db.links.get_duplicates(r, &be(link_key(code, members))).map_err(backend)? else { return Ok(None) };
        for entry in ids {
            let (_, v) = entry.map_err(backend)?;
            let id = u64::from_be_bytes(v.try_into().map_err(|_| StoreError::Corrupt("a link id that is not 8 bytes".into()))?);
            if matches!(self.record(r, id)?, Some(Record::Link(rt, m, _)) if rt == t && m == members) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The id of a stored node of this type and name, if any.
    fn find_node(&mut self, r: &RoTxn<'_>, t: Type, name: &str) -> Result<Option<u64>> {
        let Some(code) = self.types.code(t) else { return Ok(None) };
        let (key, hashed) = node_key(code, name);
        self.find(r, &key, hashed, |rec| matches!(rec, Record::Node(rt, n, _) if *rt == t && n == name), self.db.nodes)
    }

    /// The id of `h` if the store holds it, without storing anything.
    pub(super) fn lookup(&mut self, r: &RoTxn<'_>, space: &AtomSpace, h: Handle) -> Result<Option<u64>> {
        self.by_content(space, h, |s, x, t, members| match members {
            None => s.find_node(r, t, space.name(x).unwrap_or_default()),
            Some(members) => s.find_link(r, t, members),
        })
    }

    /// The id of `h`, from the id cache or `id_of`, which is given each atom
    /// under `h` not in the cache, members before the links that hold them
    /// (a work list: links nest arbitrarily deep), with its type and, for a
    /// link, its members' ids (sorted for an unordered link). Each id
    /// `id_of` gives enters the cache; its `None` ends the walk, with `None`.
    pub(super) fn by_content(
        &mut self,
        space: &AtomSpace,
        h: Handle,
        mut id_of: impl FnMut(&mut Self, Handle, Type, Option<&[u64]>) -> Result<Option<u64>>,
    ) -> Result<Option<u64>> {
        if let Some(&id) = self.ids.get(&h) {
            return Ok(Some(id));
        }
        let mut stack = vec![(h, false)];
        let mut members = Vec::new();
        while let Some((x, expanded)) = stack.pop() {
            if self.ids.contains_key(&x) {
                continue;
            }
            let t = space.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            let id = if space.name(x).is_some() {
                id_of(self, x, t, None)?
            } else if !expanded {
                stack.push((x, true));
                let out = space.outgoing(x).unwrap_or(&[]);
                stack.extend(out.iter().filter(|m| !self.ids.contains_key(m)).map(|&m| (m, false)));
                continue;
            } else {
                members.clear();
                for m in space.outgoing(x).unwrap_or(&[]) {
                    match self.ids.get(m) {
                        Some(&id) => members.push(id),
                        // A member not stored: neither is the link.
                        None => return Ok(None),
                    }
                }
                if t.is_unordered() {
                    members.sort_unstable();
                }
                id_of(self, x, t, Some(&members))?
            };
            match id {
                Some(id) => self.ids.insert(x, id),
                None => return Ok(None),
            }
        }
        Ok(self.ids.get(&h).copied())
    }

    /// The atom stored as `id`, added to the space (members first).
    pub(super) fn materialize(&mut self, r: &RoTxn<'_>, space: &AtomSpace, id: u64, known: &mut HashMap<u64, Handle>) -> Result<Handle> {
        if let Some(&h) = known.get(&id) {
            return Ok(h);
        }
        let mut stack = vec![(id, false)];
        while let Some((x, expanded)) = stack.pop() {
            if known.contains_key(&x) {
                continue;
            }
            let rec = self.record(r, x)?.ok_or_else(|| StoreError::Corrupt(format!("atom {x} is referred to but not stored")))?;
            let (h, tv) = match rec {
                Record::Node(t, name, tv) => (space.add_node(t, &name)?, tv),
                Record::Link(t, members, tv) => {
                    if !expanded {
                        stack.push((x, true));
                        stack.extend(members.iter().filter(|m| !known.contains_key(*m)).map(|&m| (m, false)));
                        continue;
                    }
                    let out: Vec<Handle> = members.iter().map(|m| known[m]).collect();
                    (space.add_link(t, &out)?, tv)
                }
            };
            if !tv.is_default() {
                space.set_tv(h, tv)?;
            }
            known.insert(x, h);
            self.ids.insert(h, x);
        }
        Ok(known[&id])
    }

    /// Loads every value stored for atom `id` (now `h`) into the space.
    pub(super) fn load_values(&mut self, r: &RoTxn<'_>, space: &AtomSpace, id: u64, h: Handle, known: &mut HashMap<u64, Handle>) -> Result<()> {
        let entries: Vec<(u64, Vec<u8>)> = self
            .db
            .values
            .prefix_iter(r, &be(id))
            .map_err(backend)?
            .map(|e| {
                let (k, v) = e.map_err(backend)?;
                Ok((value_key_ids(k)?.1, v.to_vec()))
            })
            .collect::<Result<_>>()?;
        for (key_id, bytes) in entries {
            self.set_loaded(r, space, h, key_id, &bytes, known)?;
        }
        Ok(())
    }

    pub(super) fn set_loaded(
        &mut self,
        r: &RoTxn<'_>,
        space: &AtomSpace,
        h: Handle,
        key_id: u64,
        bytes: &[u8],
        known: &mut HashMap<u64, Handle>,
    ) -> Result<()> {
        let mut atom_ids = Vec::new();
        let v = codec::decode(bytes, &mut |aid| {
            atom_ids.push(aid);
            Ok(Handle::from_u32(0))
        })?;
        let v = if atom_ids.is_empty() {
            v
        } else {
            let handles = atom_ids.iter().map(|&a| self.materialize(r, space, a, known)).collect::<Result<Vec<_>>>()?;
            let mut it = handles.into_iter();
            codec::decode(bytes, &mut |_| Ok(it.next().expect("as many atoms as the first pass")))?
        };
        let key = self.materialize(r, space, key_id, known)?;
        space.set_value(h, key, v)?;
        Ok(())
    }

    /// `incoming_count`: the stored links holding `h`, counted no further than `limit`.
    pub(super) fn count_incoming(&mut self, space: &AtomSpace, h: Handle, limit: usize) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| {
            let Some(id) = s.lookup(r, space, h)? else { return Ok(0) };
            let Some(edges) = s.db.incoming.get_duplicates(r, &be(id)).map_err(backend)? else { return Ok(0) };
            let mut n = 0;
            for e in edges.take(limit) {
                e.map_err(backend)?;
                n += 1;
            }
            Ok(n)
        })
    }

    /// `fetch_node` and `fetch_link`: the stored atom of this type and
    /// name, or over these atoms of the space, loaded with its values.
    pub(super) fn fetch_content(&mut self, space: &AtomSpace, t: Type, name: Option<&str>, outgoing: &[Handle]) -> Result<Option<Handle>> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| {
            let id = match name {
                Some(name) => s.find_node(r, t, name)?,
                None => {
                    let mut members = Vec::with_capacity(outgoing.len());
                    for &m in outgoing {
                        let Some(id) = s.lookup(r, space, m)? else { return Ok(None) };
                        members.push(id);
                    }
                    if t.is_unordered() {
                        members.sort_unstable();
                    }
                    s.find_link(r, t, &members)?
                }
            };
            let Some(id) = id else { return Ok(None) };
            let mut known = HashMap::default();
            let h = s.materialize(r, space, id, &mut known)?;
            s.load_values(r, space, id, h, &mut known)?;
            Ok(Some(h))
        })
    }

    /// `fetch_incoming_set` (and, of type `t`, `fetch_incoming_by_type`).
    pub(super) fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| s.load_incoming(r, space, h, t, recursive))
    }

    /// Loads the links holding `h` (of type `t`; with `recursive`, the links
    /// holding those, and so on), with their values; how many.
    fn load_incoming(&mut self, r: &RoTxn<'_>, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        let Some(id) = self.lookup(r, space, h)? else { return Ok(0) };
        let mut prefix = be(id).to_vec();
        if let Some(t) = t {
            let Some(code) = self.types.code(t) else { return Ok(0) };
            prefix.extend_from_slice(&code.to_be_bytes());
        }
        let mut known = HashMap::default();
        known.insert(id, h);
        // Links loaded as members of others are in `known` too, but still to be counted and walked.
        let mut visited: HashSet<u64> = HashSet::default();
        visited.insert(id);
        let mut work = vec![prefix];
        let mut loaded = 0;
        while let Some(prefix) = work.pop() {
            let holders = self.holders(r, &prefix)?;
            for l in holders {
                if !visited.insert(l) {
                    continue;
                }
                let lh = self.materialize(r, space, l, &mut known)?;
                self.load_values(r, space, l, lh, &mut known)?;
                loaded += 1;
                if recursive {
                    work.push(be(l).to_vec());
                }
            }
        }
        Ok(loaded)
    }

    /// The links whose incoming edges start with `prefix` (a member id, and
    /// maybe a link type code). A short edge is damage, not a panic.
    pub(super) fn holders(&self, r: &RoTxn<'_>, prefix: &[u8]) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        let (member, code) = prefix.split_at(8.min(prefix.len()));
        let Some(edges) = self.db.incoming.get_duplicates(r, member).map_err(backend)? else { return Ok(out) };
        for entry in edges {
            let (_, v) = entry.map_err(backend)?;
            if !v.starts_with(code) {
                continue;
            }
            let link = v.get(2..10).ok_or_else(|| StoreError::Corrupt("a short incoming edge".into()))?;
            out.push(u64::from_be_bytes(link.try_into().expect("8 bytes")));
        }
        Ok(out)
    }
}
