//! Atoms and values written into an upstream RocksDB store, by their
//! text, as upstream's RocksStorageNode writes them.
//!
//! Invariant: a batch is one RocksDB write batch ([`RocksStore::write`]),
//! all or nothing, with the highest id it issued; an atom is found by its
//! text (`n@`, `l@`) before a new id is issued, and stored after its
//! members, in their incoming index; an atom stored again has its values
//! replaced, not merged, but for upstream's own flags on it, which stay.
//! Reads of what the batch wrote go through its overlay: the batch is not
//! in the database until it is written.

use std::collections::BTreeMap;

use atomweave::types::PREDICATE_NODE;
use atomweave::{AtomSource, AtomSpace, Handle, TruthValue, Type, Value};
use rocksdb::WriteBatch;

use super::keys::{self, atom_key, content_key, incoming_key, value_key, values_prefix, AID_KEY};
use super::read::{decode_value, node_text};
use super::text::push_value;
use super::{backend, RocksStore, IS_KEY_FLAG, IS_MESSAGE_FLAG};
use crate::{add, apply_ops, live_values, Batching, HashSet, Op, OpWriter, Result, BATCH};

/// A write batch, and the values it writes (`None`: deleted), for reads
/// within it.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) wb: WriteBatch,
    values: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
}

impl Batch {
    fn put_value(&mut self, key: Vec<u8>, v: Vec<u8>) {
        self.wb.put(&key, &v);
        self.values.insert(key, Some(v));
    }

    fn delete_value(&mut self, key: Vec<u8>) {
        self.wb.delete(&key);
        self.values.insert(key, None);
    }
}

impl RocksStore {
    /// The id of `h`: found by its text, or stored now (members first, a
    /// work list: links nest arbitrarily deep).
    pub(super) fn id_for(&mut self, b: &mut Batch, space: &AtomSpace, h: Handle) -> Result<u64> {
        let mut stack: Vec<(Handle, Option<String>)> = vec![(h, None)];
        while let Some((x, text)) = stack.pop() {
            if self.ids.contains_key(&x) {
                continue;
            }
            let t = space.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            let aid = match text {
                // Its members are stored now: a new link.
                Some(text) => {
                    let members: Vec<u64> = space.outgoing(x).unwrap_or_default().iter().map(|m| self.ids[m]).collect();
                    self.new_atom(b, t, &text, &members)?
                }
                None => {
                    let (link, text) = Self::text_of(space, x)?;
                    let found = if self.fresh { None } else { self.find_text(link, &text)? };
                    match found {
                        Some(aid) => aid,
                        None if !link => self.new_atom(b, t, &text, &[])?,
                        None => {
                            let members = space.outgoing(x).unwrap_or_default();
                            stack.push((x, Some(text)));
                            stack.extend(members.iter().filter(|m| !self.ids.contains_key(m)).map(|&m| (m, None)));
                            continue;
                        }
                    }
                }
            };
            self.ids.insert(x, aid);
        }
        Ok(self.ids[&h])
    }

    /// Issues an id to a new atom, whose members are stored as `members`.
    /// A scope link is written without the alpha-equivalence hash upstream
    /// puts before it (its C++ code's own): atomweave finds it by its text.
    fn new_atom(&mut self, b: &mut Batch, t: Type, text: &str, members: &[u64]) -> Result<u64> {
        let aid = self.next_aid;
        self.next_aid += 1;
        b.wb.put(content_key(t.is_link(), text), keys::sid(aid));
        b.wb.put(atom_key(aid), text);
        let mut seen = HashSet::default();
        for &m in members.iter().filter(|&&m| seen.insert(m)) {
            b.wb.put(incoming_key(m, t.name(), aid), b"");
        }
        Ok(aid)
    }

    /// The id of the node `(t name)` that no space need hold: found or stored now.
    fn node_id(&mut self, b: &mut Batch, t: Type, name: &str) -> Result<u64> {
        let text = node_text(t, name);
        match self.find_text(false, &text)? {
            Some(aid) => Ok(aid),
            None => self.new_atom(b, t, &text, &[]),
        }
    }

    /// The id of the truth value's key atom: found or stored now.
    fn tv_id(&mut self, b: &mut Batch) -> Result<u64> {
        if let Some(aid) = self.find_tv_aid()? {
            return Ok(aid);
        }
        let aid = self.node_id(b, PREDICATE_NODE, atomweave::sexpr::TV_KEY)?;
        self.tv_aid = Some(aid);
        Ok(aid)
    }

    /// Writes one value of atom `aid`; `None` removes it. Under the truth
    /// value's key, the default truth value is no value.
    fn put_value(&mut self, b: &mut Batch, space: &AtomSpace, aid: u64, key: Handle, v: Option<&Value>) -> Result<()> {
        let tv_key = space.is_tv_key(key);
        let key_aid = if tv_key { self.tv_id(b)? } else { self.id_for(b, space, key)? };
        let k = value_key(aid, key_aid);
        match v {
            Some(Value::Truth(tv)) if tv_key && *tv == TruthValue::DEFAULT => b.delete_value(k),
            None => b.delete_value(k),
            Some(v) => {
                let mut text = String::new();
                push_value(space, v, &mut text)?;
                b.put_value(k, text.into_bytes());
            }
        }
        Ok(())
    }

    /// The ids of upstream's flags, whose values on an atom stay when it is stored again.
    fn flag_ids(&self) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        for name in [IS_KEY_FLAG, IS_MESSAGE_FLAG] {
            out.extend(self.find_text(false, &node_text(PREDICATE_NODE, name))?);
        }
        Ok(out)
    }

    /// Removes every value of atom `aid` but upstream's flags: stored or
    /// written earlier in this batch.
    fn clear_values(&mut self, b: &mut Batch, aid: u64, flags: &[u64]) -> Result<()> {
        let prefix = values_prefix(aid);
        let keep = |k: &[u8]| keys::split_value_key(k).is_ok_and(|(_, kid)| flags.contains(&kid));
        let mut old: Vec<Vec<u8>> = self.scan(&prefix)?.into_iter().map(|(k, _)| k.into_vec()).collect();
        old.extend(b.values.range(prefix.clone()..keys::prefix_end(&prefix)).filter(|(_, v)| v.is_some()).map(|(k, _)| k.clone()));
        for k in old.into_iter().filter(|k| !keep(k)) {
            b.delete_value(k);
        }
        Ok(())
    }

    /// Stores `h` with its truth value and values, replacing values stored before.
    fn put_atom(&mut self, b: &mut Batch, space: &AtomSpace, h: Handle, flags: &[u64]) -> Result<()> {
        let aid = self.id_for(b, space, h)?;
        if aid < self.made_from {
            self.clear_values(b, aid, flags)?;
        }
        let tv = space.get_tv(h).unwrap_or_default();
        if tv != TruthValue::DEFAULT {
            let tv_aid = self.tv_id(b)?;
            let mut text = String::new();
            push_value(space, &Value::Truth(tv), &mut text)?;
            b.put_value(value_key(aid, tv_aid), text.into_bytes());
        }
        for (k, v) in live_values(space, h) {
            self.put_value(b, space, aid, k, Some(&v))?;
        }
        Ok(())
    }

    /// The stored value plus `delta`, written back in the same batch.
    fn apply_update(&mut self, b: &mut Batch, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        let aid = self.id_for(b, space, h)?;
        if aid >= self.made_from {
            // First stored by this batch: the space's value already counts the update.
            return self.put_value(b, space, aid, key, space.get_value(h, key).as_ref());
        }
        let tv_key = space.is_tv_key(key);
        let key_aid = if tv_key { self.tv_id(b)? } else { self.id_for(b, space, key)? };
        let k = value_key(aid, key_aid);
        let bytes = match b.values.get(&k) {
            Some(v) => v.clone(),
            None => self.db.get(&k).map_err(backend)?,
        };
        let stored = match bytes {
            Some(bytes) => decode_value(space, &bytes)?,
            None => None,
        };
        let new = add(stored, tv_key, delta);
        self.put_value(b, space, aid, key, Some(&new))
    }

    /// Runs `f` into one write batch, written with the highest id issued;
    /// on failure nothing of it is kept, nor the ids it issued.
    pub(super) fn write<T>(&mut self, f: impl FnOnce(&mut Self, &mut Batch) -> Result<T>) -> Result<T> {
        self.made_from = self.next_aid;
        let mut b = Batch::default();
        let result = f(self, &mut b).and_then(|t| {
            if self.next_aid > self.made_from {
                b.wb.put(AID_KEY, keys::sid(self.next_aid - 1));
            }
            self.db.write(b.wb).map_err(backend).map(|()| t)
        });
        if result.is_err() {
            self.next_aid = self.made_from;
            self.forget_ids();
        }
        self.made_from = u64::MAX;
        result
    }

    /// `store_atomspace`: each atom found by its text or added, its values replaced.
    pub(super) fn store_chunks(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let all = space.one_copy_each().into_kept();
        let flags = self.flag_ids()?;
        // A space that may see one content twice (not `is_chain`) is stored by content.
        let empty = self.scan_first(b"a@")?.is_none();
        self.fresh = empty && space.is_chain();
        let mut n = 0u64;
        let mut result = Ok(());
        for chunk in all.chunks(BATCH) {
            result = self.write(|s, b| chunk.iter().try_for_each(|&h| s.put_atom(b, space, h, &flags)));
            if result.is_err() {
                break;
            }
            n += chunk.len() as u64;
            progress(n);
        }
        self.fresh = false;
        result.map(|()| n)
    }
}

impl Batching for RocksStore {
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>) {
        (&mut self.pending, &mut self.pending_space)
    }

    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()> {
        self.ids.use_space(space);
        let flags = self.flag_ids()?;
        self.write(|s, b| apply_ops(&mut Writes { s, b, flags: &flags }, space, ops))
    }
}

/// A batch's writes into one RocksDB write batch.
struct Writes<'a> {
    s: &'a mut RocksStore,
    b: &'a mut Batch,
    flags: &'a [u64],
}

impl OpWriter for Writes<'_> {
    fn atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.s.put_atom(self.b, space, h, self.flags)
    }

    fn value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        let aid = self.s.id_for(self.b, space, h)?;
        self.s.put_value(self.b, space, aid, key, space.get_value(h, key).as_ref())
    }

    fn update(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        self.s.apply_update(self.b, space, h, key, delta)
    }
}
