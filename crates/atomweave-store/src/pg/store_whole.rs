//! A whole space stored into an empty store: every atom copied straight
//! into `atoms` and every value into `atom_values`, with the indexes
//! dropped and built again from the rows (several times faster than
//! growing them row by row), all in one transaction under a table lock
//! that other writers wait on.
//!
//! Invariant: the store is empty until the transaction commits, and whole
//! after it; a crash, or a store found not empty once the lock is held,
//! leaves it as it was.
//!
//! The atoms to copy come from a walk of the space that keeps a slot per
//! handle (a [`HandleMap`]): members before the links that hold them (a
//! link's height is one above its tallest member's), and the keys and
//! atoms of values. The space may change while it is stored: what was
//! added after the walk (an atom, a value naming one) is not stored, as a
//! write after the store would not be. Nothing goes into the uuid cache:
//! it would grow by the whole space, and later writes find stored atoms by
//! their content.

use atomweave::AtomSource;
use atomweave::{types, AtomSpace, Handle, Type};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type as SqlType;

use super::errors::pg_err;
use super::schema::{ATOM_COLUMNS, ATOM_TYPES, DROP_INDEXES, INDEXES, MEMBER_INDEXES};
use super::{PgStore, REPORT};
use crate::{codec, live_values, HandleMap, HashSet, Result, StoreError};

/// No slot: a handle the walk has not reached.
const UNSEEN: u32 = u32::MAX;

/// The space's atoms in the order they are copied.
struct Walk {
    /// Atoms, members before links, with their heights.
    order: Vec<(Handle, i16)>,
    /// A handle's place in `order`.
    slot: HandleMap<u32>,
    /// Places of atoms that had values other than the truth value.
    with_values: Vec<u32>,
    types: HashSet<Type>,
}

impl Walk {
    fn of(space: &AtomSpace) -> Result<Walk> {
        let listed: Vec<Handle> = space.handles_by_type(types::ATOM, true).collect();
        let mut slot = HandleMap::new(UNSEEN);
        slot.reserve(listed.iter().map(|h| h.to_u32()).max().unwrap_or(0), listed.len());
        let mut w = Walk { order: Vec::with_capacity(listed.len()), slot, with_values: Vec::new(), types: HashSet::default() };
        let mut stack: Vec<(Handle, bool)> = Vec::new();
        for root in listed {
            stack.push((root, false));
            while let Some((h, expanded)) = stack.pop() {
                if w.place(h).is_some() {
                    continue;
                }
                // Extracted meanwhile (and so are the links above it).
                let (Some(t), Some(members)) = (space.get_type(h), space.outgoing(h)) else { continue };
                if !expanded && !members.is_empty() {
                    stack.push((h, true));
                    stack.extend(members.iter().filter(|m| w.place(**m).is_none()).map(|&m| (m, false)));
                    continue;
                }
                // By the record, not the type: a foreign AST's leaf is a node of a link type.
                let height = if space.is_link(h) {
                    let mut top = 0;
                    for m in members {
                        let Some(i) = w.place(*m) else { continue };
                        top = top.max(w.order[i].1);
                    }
                    top.checked_add(1).ok_or_else(|| StoreError::Unsupported("a link nested more than 32767 deep cannot be stored in PostgreSQL".into()))?
                } else {
                    0
                };
                let at = w.order.len() as u32;
                w.slot.insert(h, at);
                w.order.push((h, height));
                w.types.insert(t);
                let values = live_values(space, h);
                if !values.is_empty() {
                    w.with_values.push(at);
                }
                for (k, v) in values {
                    stack.push((k, false));
                    stack.extend(v.atoms().into_iter().map(|a| (a, false)));
                }
            }
        }
        Ok(w)
    }

    fn place(&self, h: Handle) -> Option<usize> {
        self.slot.get(&h).map(|&s| s as usize)
    }
}

impl PgStore {
    /// `store_atomspace` into an empty store: the atoms written, or `None`
    /// when the store is not empty or the space may hold one content twice
    /// (nothing was written).
    pub(super) fn store_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<Option<u64>> {
        let url = self.url.clone();
        let has_atoms: bool = self.client()?.query_one("SELECT EXISTS (SELECT 1 FROM atoms)", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        if has_atoms {
            return Ok(None);
        }
        // Uuids cached before name nothing now (another process emptied the store).
        self.ids.clear();
        // A content seen twice would be two rows: the by-content path takes it.
        if !space.is_chain() {
            return Ok(None);
        }
        let walk = Walk::of(space)?;
        self.ensure_codes(walk.types.iter().copied())?;
        let mut uuids = self.take_ids(walk.order.len())?;
        let mut client = self.client.take().expect("connected by take_ids");
        let result = (|| -> Result<Option<u64>> {
            let mut t = client.transaction().map_err(|e| pg_err(&url, e))?;
            // Other writers wait from here (the lock conflicts with theirs, and with itself).
            t.execute("LOCK TABLE atoms IN SHARE ROW EXCLUSIVE MODE", &[]).map_err(|e| pg_err(&url, e))?;
            if t.query_one("SELECT EXISTS (SELECT 1 FROM atoms)", &[]).map_err(|e| pg_err(&url, e))?.get::<_, bool>(0) {
                return Ok(None);
            }
            t.batch_execute("LOCK TABLE atoms, atom_values IN ACCESS EXCLUSIVE MODE").map_err(|e| pg_err(&url, e))?;
            t.batch_execute(DROP_INDEXES).map_err(|e| pg_err(&url, e))?;
            let written = self.copy_atoms(&mut t, space, &walk, &mut uuids, progress)?;
            self.copy_values(&mut t, space, &walk, &uuids)?;
            t.batch_execute("SET LOCAL maintenance_work_mem = '256MB'").map_err(|e| pg_err(&url, e))?;
            t.batch_execute(INDEXES).map_err(|e| pg_err(&url, e))?;
            t.batch_execute(MEMBER_INDEXES).map_err(|e| pg_err(&url, e))?;
            t.commit().map_err(|e| pg_err(&url, e))?;
            progress(written);
            Ok(Some(written))
        })();
        self.client = Some(client);
        result
    }

    /// Copies the walk's atoms into `atoms`; an atom extracted since the
    /// walk is left out, and its uuid set to 0 (no uuid is 0).
    fn copy_atoms(&self, t: &mut postgres::Transaction<'_>, space: &AtomSpace, walk: &Walk, uuids: &mut [i64], progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let url = &self.url;
        let sink = t.copy_in(&format!("COPY atoms ({ATOM_COLUMNS}) FROM STDIN (FORMAT binary)")).map_err(|e| pg_err(url, e))?;
        let mut w = BinaryCopyInWriter::new(sink, &ATOM_TYPES);
        let mut out: Vec<i64> = Vec::new();
        let mut written = 0u64;
        for (i, &(h, height)) in walk.order.iter().enumerate() {
            // A member left out (uuid 0): the link went with it.
            let uuid_of = |m: Handle| walk.place(m).map(|j| uuids[j]).filter(|&u| u != 0);
            if self.copy_row(&mut w, space, h, uuids[i], height, uuid_of, &mut out)?.is_none() {
                uuids[i] = 0;
                continue;
            }
            written += 1;
            if written % REPORT == 0 {
                progress(written);
            }
        }
        w.finish().map_err(|e| pg_err(url, e))?;
        Ok(written)
    }

    /// Copies the values of the atoms copied; a value naming an atom the
    /// walk did not reach (set since) is left out.
    fn copy_values(&self, t: &mut postgres::Transaction<'_>, space: &AtomSpace, walk: &Walk, uuids: &[i64]) -> Result<()> {
        let url = &self.url;
        if walk.with_values.is_empty() {
            return Ok(());
        }
        let uuid_of = |a: Handle| walk.place(a).map(|j| uuids[j]).filter(|&u| u != 0);
        let sink = t.copy_in("COPY atom_values (atom, key, value) FROM STDIN (FORMAT binary)").map_err(|e| pg_err(url, e))?;
        let mut w = BinaryCopyInWriter::new(sink, &[SqlType::INT8, SqlType::INT8, SqlType::BYTEA]);
        let mut bytes = Vec::new();
        for &i in &walk.with_values {
            let (h, _) = walk.order[i as usize];
            let atom = uuids[i as usize];
            if atom == 0 {
                continue;
            }
            for (k, v) in live_values(space, h) {
                let Some(key) = uuid_of(k).filter(|_| !space.is_tv_key(k)) else { continue };
                if !v.atoms().into_iter().all(|a| uuid_of(a).is_some()) {
                    continue;
                }
                bytes.clear();
                codec::encode(&v, &mut bytes, &mut |a| Ok(uuid_of(a).expect("checked above") as u64))?;
                w.write(&[&atom, &key, &bytes]).map_err(|e| pg_err(url, e))?;
            }
        }
        w.finish().map_err(|e| pg_err(url, e))?;
        Ok(())
    }
}
