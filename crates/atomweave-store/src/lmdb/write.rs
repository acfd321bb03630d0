//! Atoms and values written into the store by content.
//!
//! Invariant: a write transaction ([`LmdbStore::write`]) is all or
//! nothing, and commits the next id with what it wrote: an atom is stored
//! once per content (found by its `nodes` or `links` key before a new id
//! is given), after its members, with its incoming edges and its values
//! under stored keys; an atom stored again has its values replaced, not
//! merged.

use atomweave::AtomSource;
use atomweave::{AtomSpace, Handle, TruthValue, Type, Value};
use heed::RwTxn;

use super::layout::{be, distinct, edge_data, encode_record, link_key, node_key, put_varint, split_record, value_key, Record};
use super::{backend, LmdbStore};
use crate::{add, apply_ops, codec, live_values, Batching, Op, OpWriter, Result, StoreError, BATCH};

impl LmdbStore {
    /// Replaces the truth value in atom `id`'s record.
    fn put_tv(&self, w: &mut RwTxn<'_>, id: u64, tv: TruthValue) -> Result<()> {
        let bytes = self.db.atoms.get(w, &be(id)).map_err(backend)?.ok_or_else(|| StoreError::Corrupt(format!("atom {id} vanished")))?;
        let (code, link, old, body) = split_record(id, bytes)?;
        if old == tv {
            return Ok(());
        }
        let body = body.to_vec();
        let rec = encode_record(code, link, tv, |r| r.extend_from_slice(&body));
        self.db.atoms.put(w, &be(id), &rec).map_err(backend)
    }

    /// The store id of `h`: found by content, or stored now (members first).
    fn id_for(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, h: Handle) -> Result<u64> {
        let id = self.by_content(space, h, |s, x, t, members| {
            let tv = space.get_tv(x).unwrap_or_default();
            Ok(Some(match members {
                None => s.put_node(w, t, space.name(x).unwrap_or_default(), tv)?,
                Some(members) => s.put_link(w, t, members, tv)?,
            }))
        })?;
        Ok(id.expect("every atom is found or stored"))
    }

    fn put_node(&mut self, w: &mut RwTxn<'_>, t: Type, name: &str, tv: TruthValue) -> Result<u64> {
        let code = self.code(w, t)?;
        let (key, hashed) = node_key(code, name);
        if let Some(id) = self.find(w, &key, hashed, |r| matches!(r, Record::Node(rt, n, _) if *rt == t && n == name), self.db.nodes)? {
            return Ok(id);
        }
        let id = self.new_id()?;
        let rec = encode_record(code, false, tv, |r| r.extend_from_slice(name.as_bytes()));
        self.put_record(w, id, rec)?;
        self.add_key(w, &key, hashed, id)?;
        Ok(id)
    }

    fn put_link(&mut self, w: &mut RwTxn<'_>, t: Type, members: &[u64], tv: TruthValue) -> Result<u64> {
        let code = self.code(w, t)?;
        if let Some(id) = self.find_link(w, t, members)? {
            return Ok(id);
        }
        let id = self.new_id()?;
        let rec = encode_record(code, true, tv, |r| members.iter().for_each(|&m| put_varint(r, m)));
        self.put_record(w, id, rec)?;
        self.db.links.put(w, &be(link_key(code, members)), &be(id)).map_err(backend)?;
        for m in distinct(members) {
            self.db.incoming.put(w, &be(m), &edge_data(code, id)).map_err(backend)?;
        }
        Ok(id)
    }

    /// Ids only grow, so a new record always goes at the end of the table:
    /// appended, it fills pages instead of splitting them.
    fn put_record(&mut self, w: &mut RwTxn<'_>, id: u64, rec: Vec<u8>) -> Result<()> {
        self.db.atoms.put_with_flags(w, heed::PutFlags::APPEND, &be(id), &rec).map_err(backend)
    }

    /// Indexes node `id` under its content `key`.
    fn add_key(&mut self, w: &mut RwTxn<'_>, key: &[u8], hashed: bool, id: u64) -> Result<()> {
        let db = self.db.nodes;
        let mut v = if hashed { db.get(w, key).map_err(backend)?.map(<[u8]>::to_vec).unwrap_or_default() } else { Vec::new() };
        v.extend_from_slice(&id.to_le_bytes());
        db.put(w, key, &v).map_err(backend)
    }

    /// Writes one value of `h` (stored as `id`); `None` removes it.
    fn put_value(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, id: u64, key: Handle, v: Option<&Value>) -> Result<()> {
        if space.is_tv_key(key) {
            let tv = match v {
                Some(Value::Truth(tv)) => *tv,
                _ => TruthValue::DEFAULT,
            };
            return self.put_tv(w, id, tv);
        }
        let key_id = self.id_for(w, space, key)?;
        let k = value_key(id, key_id);
        match v {
            None => drop(self.db.values.delete(w, &k).map_err(backend)?),
            Some(v) => {
                for a in v.atoms() {
                    self.id_for(w, space, a)?;
                }
                let mut bytes = Vec::new();
                let ids = &self.ids;
                codec::encode(v, &mut bytes, &mut |a| Ok(ids[&a]))?;
                self.db.values.put(w, &k, &bytes).map_err(backend)?;
            }
        }
        Ok(())
    }

    /// Stores `h` and all its values, replacing values stored before. With
    /// `own_tv`, its truth value is written even where this transaction
    /// made its record: another copy of its content (below a space of two
    /// bases), met first as a member or in a value, made it with its own.
    fn put_atom(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, h: Handle, own_tv: bool) -> Result<()> {
        let id = self.id_for(w, space, h)?;
        if let (Some(t), Some(name)) = (space.get_type(h), space.name(h)) {
            self.check_failure(t, name)?;
        }
        if id < self.made_from {
            self.delete_values(w, id)?;
        }
        // Made before this write, its record holds the truth value it had
        // then; made in it from another copy, that copy's.
        if id < self.made_from || own_tv {
            self.put_tv(w, id, space.get_tv(h).unwrap_or_default())?;
        }
        for (k, v) in live_values(space, h) {
            self.put_value(w, space, id, k, Some(&v))?;
        }
        Ok(())
    }

    /// The stored value plus `delta`, written back in the same transaction.
    fn apply_update(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        let id = self.id_for(w, space, h)?;
        if id >= self.made_from {
            // First stored by this write: the store gets the space's value,
            // which already counts the update.
            return self.put_value(w, space, id, key, space.get_value(h, key).as_ref());
        }
        let tv_key = space.is_tv_key(key);
        let stored = if tv_key {
            Some(Value::Truth(self.stored_tv(w, id)?))
        } else {
            let key_id = self.id_for(w, space, key)?;
            match self.db.values.get(w, &value_key(id, key_id)).map_err(backend)? {
                // An old value that held atoms is replaced by numbers: its atoms need no handles.
                Some(bytes) => Some(codec::decode(bytes, &mut |_| Ok(Handle::from_u32(u32::MAX)))?),
                None => None,
            }
        };
        let new = add(stored, tv_key, delta);
        self.put_value(w, space, id, key, Some(&new))
    }

    /// Runs `f` in one write transaction, committed with the next id; on
    /// failure nothing of it is kept, nor the ids it gave out.
    pub(super) fn write<T>(&mut self, f: impl FnOnce(&mut Self, &mut RwTxn<'_>) -> Result<T>) -> Result<T> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let mut w = env.write_txn().map_err(backend)?;
        let result = (|| {
            self.refresh_meta(&w)?;
            self.made_from = self.next_id;
            let t = f(self, &mut w)?;
            self.db.meta.put(&mut w, b"next_id", &self.next_id.to_le_bytes()).map_err(backend)?;
            Ok(t)
        })();
        match result.and_then(|t| w.commit().map_err(backend).map(|()| t)) {
            Ok(t) => Ok(t),
            Err(e) => {
                self.ids.clear();
                self.reload_meta()?;
                Err(e)
            }
        }
    }

    /// `store_atomspace` into a store that holds atoms: each atom found
    /// by its content or added, its values replaced.
    pub(super) fn store_chunks(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let all = space.one_copy_each().into_kept();
        let own_tv = !space.is_chain();
        let mut n = 0u64;
        for chunk in all.chunks(BATCH) {
            self.write(|s, w| chunk.iter().try_for_each(|&h| s.put_atom(w, space, h, own_tv)))?;
            n += chunk.len() as u64;
            progress(n);
        }
        Ok(n)
    }
}

impl Batching for LmdbStore {
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>) {
        (&mut self.pending, &mut self.pending_space)
    }

    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()> {
        self.ids.use_space(space);
        self.write(|s, w| apply_ops(&mut Writes { s, w }, space, ops))
    }
}

/// A batch's writes into one LMDB transaction.
struct Writes<'a, 't> {
    s: &'a mut LmdbStore,
    w: &'a mut RwTxn<'t>,
}

impl OpWriter for Writes<'_, '_> {
    fn atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.s.put_atom(self.w, space, h, false)
    }

    fn value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        let id = self.s.id_for(self.w, space, h)?;
        self.s.put_value(self.w, space, id, key, space.get_value(h, key).as_ref())
    }

    fn update(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        self.s.apply_update(self.w, space, h, key, delta)
    }
}
