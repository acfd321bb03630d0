//! A batch of writes, in one transaction.
//!
//! Invariant: a batch is all or nothing. Its atoms go in members first,
//! height by height, through the staging table and `INSERT .. ON CONFLICT`
//! on the digest, in digest order (another writer of the same atoms gets
//! the same row, and waits in the same order); an atom stored again has
//! its values replaced; an update adds to the value the store holds,
//! locked until the commit. A batch the server rolls back for a conflict
//! is tried again as a whole.

use atomweave::AtomSource;
use atomweave::{AtomSpace, Handle, TruthValue, Type, Value};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type as SqlType;
use postgres::Transaction;

use super::errors::{pg_err, retry_conflicts};
use super::schema::{link_digest, node_digest, tv_columns, tv_of, Ids, Row, ValueRows, ATOM_COLUMNS, ATOM_TYPES};
use super::PgStore;
use crate::{add, codec, holds_only_live, live_values, op_values, Batching, HashMap, HashSet, Op, Result, StoreError};

/// Truth values to write, by atom uuid.
type TruthValues = HashMap<i64, TruthValue>;

/// An update of a batch: atom, key, delta.
type Update<'o> = (Handle, Handle, &'o [f64]);

/// What a batch of writes stores, gathered from its ops.
struct Batch<'o> {
    ops: &'o [Op],
    /// Atoms stored whole, with every value.
    full: Vec<Handle>,
    /// The atoms the batch needs stored: those it writes, their keys, and
    /// the atoms their values hold.
    needed: Vec<Handle>,
    /// Atoms and values stored as the space holds them now, which already
    /// counts any update of them in the batch.
    snapshot: HashSet<(Handle, Option<Handle>)>,
}

impl<'o> Batch<'o> {
    /// The batch of `ops`; atoms (and keys) removed from the space since
    /// they were queued are not stored.
    fn of(space: &AtomSpace, ops: &'o [Op]) -> Batch<'o> {
        let live = |h: &Handle| space.contains(*h);
        let mut batch = Batch { ops, full: Vec::new(), needed: Vec::new(), snapshot: HashSet::default() };
        for op in ops {
            match op {
                Op::Atom(h) if live(h) => {
                    batch.full.push(*h);
                    batch.snapshot.insert((*h, None));
                    batch.needed.push(*h);
                    for (k, v) in live_values(space, *h) {
                        // The truth value lives in the atom's row: its key is not stored.
                        if !space.is_tv_key(k) {
                            batch.needed.push(k);
                            batch.needed.extend(v.atoms());
                        }
                    }
                }
                Op::Value(h, k) if live(h) && live(k) => {
                    batch.snapshot.insert((*h, Some(*k)));
                    batch.needed.push(*h);
                    if !space.is_tv_key(*k) {
                        batch.needed.push(*k);
                    }
                    if let Some(v) = space.get_value(*h, *k).filter(|v| holds_only_live(space, v)) {
                        batch.needed.extend(v.atoms());
                    }
                }
                Op::Update(h, k, _) if live(h) && live(k) => {
                    batch.needed.push(*h);
                    if !space.is_tv_key(*k) {
                        batch.needed.push(*k);
                    }
                }
                _ => {}
            }
        }
        batch
    }
}

impl PgStore {
    /// Writes `ops` in one transaction, again (after a pause that grows,
    /// at random) when the server rolled it back for a conflict with
    /// another writer's. Returns the atoms written.
    pub(super) fn write(&mut self, space: &AtomSpace, ops: &[Op], progress: &mut dyn FnMut(u64)) -> Result<u64> {
        retry_conflicts(|| self.write_once(space, ops, progress))
    }

    /// [`write`](Self::write), tried once.
    fn write_once(&mut self, space: &AtomSpace, ops: &[Op], progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let batch = Batch::of(space, ops);
        // Atoms the store has already are found first (one query per
        // height), not staged and bounced off the unique index.
        self.lookup(space, &batch.needed)?;
        let rows = self.plan(space, &batch.needed)?;
        let url = self.url.clone();
        let mut fresh: HashSet<Handle> = HashSet::default();
        let mut made: Ids = HashMap::default();
        let mut client = self.client.take().expect("plan connected");
        let result = (|| -> Result<u64> {
            let mut t = client.transaction().map_err(|e| pg_err(&url, e))?;
            let written = self.write_atoms(&mut t, space, rows, &mut made, &mut fresh, progress)?;
            // Stored values of atoms stored again are replaced, not merged.
            let restored: Vec<i64> = batch.full.iter().filter(|h| !fresh.contains(*h)).map(|&h| self.planned_uuid(&made, h)).collect();
            if !restored.is_empty() {
                t.execute("DELETE FROM atom_values v USING unnest($1::bigint[]) AS d(atom) WHERE v.atom = d.atom", &[&restored])
                    .map_err(|e| pg_err(&url, e))?;
            }
            let (mut tvs, mut values, updates) = self.values_of(space, &batch, &made, &fresh)?;
            if !updates.is_empty() {
                self.apply_updates(&mut t, space, &updates, &made, &mut tvs, &mut values)?;
            }
            self.write_values(&mut t, tvs, values)?;
            t.commit().map_err(|e| pg_err(&url, e))?;
            Ok(written)
        })();
        self.client = Some(client);
        let written = result?;
        for (h, x) in made {
            self.ids.insert(h, x);
        }
        Ok(written)
    }

    /// The uuid of an atom a batch planned: made by it, or stored before.
    fn planned_uuid(&self, made: &Ids, h: Handle) -> i64 {
        made.get(&h).or_else(|| self.ids.get(&h)).map(|x| x.0).expect("planned")
    }

    /// The truth values and values the batch writes, by uuid, and the
    /// updates that add to what the store holds (not to the space's
    /// value, which is written instead where the batch stores it).
    fn values_of<'o>(&self, space: &AtomSpace, batch: &Batch<'o>, made: &Ids, fresh: &HashSet<Handle>) -> Result<(TruthValues, ValueRows, Vec<Update<'o>>)> {
        let live = |h: &Handle| space.contains(*h);
        let id = |h: Handle| self.planned_uuid(made, h);
        let encode = |v: &Value| -> Result<Vec<u8>> {
            let mut bytes = Vec::new();
            codec::encode(v, &mut bytes, &mut |a| Ok(id(a) as u64))?;
            Ok(bytes)
        };
        let mut tvs: TruthValues = HashMap::default();
        let mut values: ValueRows = HashMap::default();
        for &h in &batch.full {
            let u = id(h);
            if !fresh.contains(&h) {
                tvs.insert(u, space.get_tv(h).unwrap_or_default());
            }
            for (k, v) in live_values(space, h) {
                if !space.is_tv_key(k) {
                    values.insert((u, id(k)), Some(encode(&v)?));
                }
            }
        }
        let mut updates: Vec<Update<'o>> = Vec::new();
        for op in batch.ops {
            match op {
                Op::Value(h, k) if live(h) && live(k) => {
                    let u = id(*h);
                    if space.is_tv_key(*k) {
                        tvs.insert(u, space.get_tv(*h).unwrap_or_default());
                    } else {
                        let v = space.get_value(*h, *k);
                        if v.as_ref().is_some_and(|v| !holds_only_live(space, v)) {
                            continue;
                        }
                        values.insert((u, id(*k)), v.map(|v| encode(&v)).transpose()?);
                    }
                }
                // The space's value already counts updates of atoms or values stored in this batch.
                Op::Update(h, k, _) if batch.snapshot.contains(&(*h, None)) || batch.snapshot.contains(&(*h, Some(*k))) => {}
                Op::Update(h, k, delta) if live(h) && live(k) => {
                    if fresh.contains(h) {
                        // First stored now: the store takes the space's value, which counts the update.
                        let u = id(*h);
                        match space.get_value(*h, *k) {
                            _ if space.is_tv_key(*k) => drop(tvs.insert(u, space.get_tv(*h).unwrap_or_default())),
                            v => drop(values.insert((u, id(*k)), v.map(|v| encode(&v)).transpose()?)),
                        }
                    } else {
                        updates.push((*h, *k, delta));
                    }
                }
                _ => {}
            }
        }
        Ok((tvs, values, updates))
    }

    /// The atoms of `needed` (and their members) the store may not hold
    /// yet, members first, with fresh uuids and heights. Types get codes.
    fn plan(&mut self, space: &AtomSpace, needed: &[Handle]) -> Result<Vec<Row>> {
        let mut rows: Vec<Row> = Vec::new();
        let mut at: HashMap<Handle, usize> = HashMap::default();
        let mut stack: Vec<(Handle, bool)> = needed.iter().rev().map(|&h| (h, false)).collect();
        let height = |h: &Handle, at: &HashMap<Handle, usize>, rows: &Vec<Row>| at.get(h).map(|&i| rows[i].height).or_else(|| self.ids.get(h).map(|x| x.1));
        while let Some((h, expanded)) = stack.pop() {
            if at.contains_key(&h) || self.ids.contains_key(&h) {
                continue;
            }
            space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
            let members = space.outgoing(h).unwrap_or(&[]);
            if !expanded && !members.is_empty() {
                stack.push((h, true));
                stack.extend(members.iter().rev().filter(|m| !at.contains_key(*m) && !self.ids.contains_key(m)).map(|&m| (m, false)));
                continue;
            }
            // By the record, not the type: a foreign AST's leaf is a node of a link type.
            let h_height = if space.is_link(h) {
                let top = members.iter().map(|m| height(m, &at, &rows).expect("members first")).max().unwrap_or(0);
                i16::try_from(i32::from(top) + 1)
                    .map_err(|_| StoreError::Unsupported("a link nested more than 32767 deep cannot be stored in PostgreSQL".into()))?
            } else {
                0
            };
            at.insert(h, rows.len());
            rows.push(Row { h, uuid: 0, height: h_height });
        }
        let ts: HashSet<Type> = rows.iter().map(|r| space.get_type(r.h).expect("checked")).collect();
        self.ensure_codes(ts)?;
        let uuids = self.take_ids(rows.len())?;
        for (r, u) in rows.iter_mut().zip(uuids) {
            r.uuid = u;
        }
        self.client()?;
        Ok(rows)
    }

    /// Writes planned rows level by level through the staging table,
    /// learning the uuids of atoms some writer stored first.
    fn write_atoms(
        &self,
        t: &mut Transaction<'_>,
        space: &AtomSpace,
        mut rows: Vec<Row>,
        made: &mut Ids,
        fresh: &mut HashSet<Handle>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        let url = &self.url;
        let mut out = Vec::new();
        rows.sort_by_key(|r| r.height);
        let mut done = 0u64;
        let mut start = 0;
        while start < rows.len() {
            let end = start + rows[start..].iter().take_while(|r| r.height == rows[start].height).count();
            let level = &rows[start..end];
            let sink = t.copy_in(&format!("COPY aw_stage ({ATOM_COLUMNS}) FROM STDIN (FORMAT binary)")).map_err(|e| pg_err(url, e))?;
            let mut w = BinaryCopyInWriter::new(sink, &ATOM_TYPES);
            let mut digests = Vec::with_capacity(level.len());
            // Members are of lower levels: written already, or stored before.
            let uuid_of = |m: Handle| made.get(&m).or_else(|| self.ids.get(&m)).map(|x| x.0);
            for r in level {
                let d = self.copy_row(&mut w, space, r.h, r.uuid, r.height, uuid_of, &mut out)?;
                digests
                    .push(d.ok_or_else(|| StoreError::Backend(format!("{:?}, or a member of it, was removed from the space while it was being stored", r.h)))?);
            }
            w.finish().map_err(|e| pg_err(url, e))?;
            let inserted: HashSet<i64> = t
                // In digest order: writers of the same atoms then wait on one another in one order, not in a cycle.
                .query(
                    &format!(
                        "INSERT INTO atoms ({ATOM_COLUMNS}) SELECT {ATOM_COLUMNS} FROM aw_stage ORDER BY digest ON CONFLICT (digest) DO NOTHING RETURNING uuid"
                    ),
                    &[],
                )
                .map_err(|e| pg_err(url, e))?
                .iter()
                .map(|r| r.get(0))
                .collect();
            t.execute("TRUNCATE aw_stage", &[]).map_err(|e| pg_err(url, e))?;
            // The rest were stored before, by us or another writer: their uuids.
            let before: Vec<&[u8]> = level.iter().zip(&digests).filter(|(r, _)| !inserted.contains(&r.uuid)).map(|(_, d)| &d[..]).collect();
            let mut stored_before: HashMap<[u8; 16], i64> = HashMap::default();
            if !before.is_empty() {
                for row in t
                    .query("SELECT a.digest, a.uuid FROM unnest($1::bytea[]) AS d(digest) JOIN atoms a USING (digest)", &[&before])
                    .map_err(|e| pg_err(url, e))?
                {
                    let d: &[u8] = row.get(0);
                    stored_before.insert(d.try_into().map_err(|_| StoreError::Corrupt("a digest that is not 16 bytes".into()))?, row.get(1));
                }
            }
            for (r, d) in level.iter().zip(&digests) {
                if inserted.contains(&r.uuid) {
                    made.insert(r.h, (r.uuid, r.height));
                    fresh.insert(r.h);
                } else {
                    let u = *stored_before
                        .get(d)
                        .ok_or_else(|| StoreError::Backend(format!("atom {} was neither stored nor found (deleted meanwhile?)", r.uuid)))?;
                    made.insert(r.h, (u, r.height));
                }
            }
            done += level.len() as u64;
            progress(done);
            start = end;
        }
        Ok(done)
    }

    /// Writes `h`'s row of `atoms` into a binary COPY of [`ATOM_COLUMNS`],
    /// its members' uuids from `uuid_of` (`out` a scratch list), and gives
    /// its digest; `None`, with nothing written, when `h` or a member is
    /// gone (extracted from the space since it was planned). Types have codes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_row(
        &self,
        w: &mut BinaryCopyInWriter<'_>,
        space: &AtomSpace,
        h: Handle,
        uuid: i64,
        height: i16,
        uuid_of: impl Fn(Handle) -> Option<i64>,
        out: &mut Vec<i64>,
    ) -> Result<Option<[u8; 16]>> {
        let (Some(ty), Some(members)) = (space.get_type(h), space.outgoing(h)) else { return Ok(None) };
        let code = self.types.known(ty).expect("types have codes");
        let tv = tv_columns(space.get_tv(h).unwrap_or_default());
        // By the record, not the type: a foreign AST's leaf is a node of a link type.
        let dig = if space.is_link(h) {
            out.clear();
            for &m in members {
                let Some(u) = uuid_of(m) else { return Ok(None) };
                out.push(u);
            }
            if ty.is_unordered() {
                out.sort_unstable();
            }
            let dig = link_digest(code, out);
            w.write(&[&uuid, &code, &height, &None::<&str>, &Some(&out[..]), &&dig[..], &tv[0], &tv[1], &tv[2]]).map_err(|e| pg_err(&self.url, e))?;
            dig
        } else {
            let name = space.name(h).unwrap_or_default();
            let dig = node_digest(code, name);
            w.write(&[&uuid, &code, &height, &Some(name), &None::<&[i64]>, &&dig[..], &tv[0], &tv[1], &tv[2]]).map_err(|e| pg_err(&self.url, e))?;
            dig
        };
        Ok(Some(dig))
    }

    /// Reads the stored values the updates add to, locked until commit, and
    /// adds to them in order.
    fn apply_updates(
        &self,
        t: &mut Transaction<'_>,
        space: &AtomSpace,
        updates: &[Update<'_>],
        made: &Ids,
        tvs: &mut TruthValues,
        values: &mut ValueRows,
    ) -> Result<()> {
        let url = &self.url;
        let id = |h: &Handle| self.planned_uuid(made, *h);
        let tv_atoms: Vec<i64> = updates.iter().filter(|u| space.is_tv_key(u.1)).map(|u| id(&u.0)).collect();
        let mut stored_tvs: HashMap<i64, TruthValue> = t
            .query(
                "SELECT a.uuid, a.tv_mean, a.tv_confidence, a.tv_count FROM unnest($1::bigint[]) AS d(uuid) JOIN atoms a USING (uuid) FOR UPDATE OF a",
                &[&tv_atoms],
            )
            .map_err(|e| pg_err(url, e))?
            .iter()
            .map(|r| (r.get(0), tv_of([r.get(1), r.get(2), r.get(3)])))
            .collect();
        let (atoms, keys): (Vec<i64>, Vec<i64>) = updates.iter().filter(|u| !space.is_tv_key(u.1)).map(|u| (id(&u.0), id(&u.1))).unzip();
        let mut stored: HashMap<(i64, i64), Value> = HashMap::default();
        for r in t
            .query(
                "SELECT v.atom, v.key, v.value FROM atom_values v JOIN unnest($1::bigint[], $2::bigint[]) AS u(atom, key) USING (atom, key) FOR UPDATE OF v",
                &[&atoms, &keys],
            )
            .map_err(|e| pg_err(url, e))?
        {
            let bytes: Vec<u8> = r.get(2);
            // An old value that held atoms is replaced by numbers: its atoms need no handles.
            let v = codec::decode(&bytes, &mut |_| Ok(Handle::from_u32(u32::MAX)))?;
            stored.insert((r.get(0), r.get(1)), v);
        }
        for &(h, k, delta) in updates {
            let u = id(&h);
            if space.is_tv_key(k) {
                let now = tvs.get(&u).or(stored_tvs.get(&u)).copied().filter(|tv| !tv.is_default());
                let Value::Truth(tv) = add(now.map(Value::Truth), true, delta) else { unreachable!("a truth value") };
                tvs.insert(u, tv);
                stored_tvs.insert(u, tv);
            } else {
                let key = (u, id(&k));
                let now = match values.get(&key) {
                    Some(Some(b)) => Some(codec::decode(b, &mut |_| Ok(Handle::from_u32(u32::MAX)))?),
                    Some(None) => None,
                    None => stored.get(&key).cloned(),
                };
                let new = add(now, false, delta);
                let mut bytes = Vec::new();
                codec::encode(&new, &mut bytes, &mut |_| Err(StoreError::Corrupt("an atom in a counted value".into())))?;
                values.insert(key, Some(bytes));
            }
        }
        Ok(())
    }

    fn write_values(&self, t: &mut Transaction<'_>, tvs: TruthValues, values: ValueRows) -> Result<()> {
        let url = &self.url;
        if !tvs.is_empty() {
            // Arrays, not a staging table: the planner then probes the
            // primary key per row rather than scanning the whole table.
            let mut tvs: Vec<(i64, TruthValue)> = tvs.into_iter().collect();
            tvs.sort_unstable_by_key(|x| x.0);
            let uuids: Vec<i64> = tvs.iter().map(|x| x.0).collect();
            let cols: Vec<[Option<f64>; 3]> = tvs.iter().map(|x| tv_columns(x.1)).collect();
            let col = |i: usize| cols.iter().map(|c| c[i]).collect::<Vec<Option<f64>>>();
            t.execute(
                "UPDATE atoms a SET tv_mean = s.m, tv_confidence = s.c, tv_count = s.n \
                 FROM unnest($1::bigint[], $2::float8[], $3::float8[], $4::float8[]) AS s(uuid, m, c, n) WHERE a.uuid = s.uuid",
                &[&uuids, &col(0), &col(1), &col(2)],
            )
            .map_err(|e| pg_err(url, e))?;
        }
        let (gone_atoms, gone_keys): (Vec<i64>, Vec<i64>) = values.iter().filter(|(_, v)| v.is_none()).map(|(k, _)| *k).unzip();
        if !gone_atoms.is_empty() {
            t.execute(
                "DELETE FROM atom_values v USING unnest($1::bigint[], $2::bigint[]) AS g(atom, key) WHERE v.atom = g.atom AND v.key = g.key",
                &[&gone_atoms, &gone_keys],
            )
            .map_err(|e| pg_err(url, e))?;
        }
        if values.values().any(Option::is_some) {
            let sink = t.copy_in("COPY aw_values (atom, key, value) FROM STDIN (FORMAT binary)").map_err(|e| pg_err(url, e))?;
            let mut w = BinaryCopyInWriter::new(sink, &[SqlType::INT8, SqlType::INT8, SqlType::BYTEA]);
            let mut values: Vec<_> = values.into_iter().collect();
            values.sort_unstable_by_key(|x| x.0);
            for ((a, k), v) in &values {
                if let Some(v) = v {
                    w.write(&[a, k, v]).map_err(|e| pg_err(url, e))?;
                }
            }
            w.finish().map_err(|e| pg_err(url, e))?;
            t.execute("INSERT INTO atom_values SELECT atom, key, value FROM aw_values ON CONFLICT (atom, key) DO UPDATE SET value = EXCLUDED.value", &[])
                .map_err(|e| pg_err(url, e))?;
        }
        Ok(())
    }
}

impl Batching for PgStore {
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>) {
        (&mut self.pending, &mut self.pending_space)
    }

    /// Besides the values: PostgreSQL's `text` cannot hold a NUL
    /// character, so no node named with one (the atom, a member at any
    /// depth, a key, an atom a value holds) can be written; nor can a link
    /// nested deeper than the `height` column counts.
    fn check_storable(&self, space: &AtomSpace, op: &Op) -> Result<()> {
        let mut roots = match *op {
            Op::Atom(h) => vec![h],
            Op::Value(h, k) | Op::Update(h, k, _) => vec![h, k],
        };
        for (k, v) in op_values(space, op) {
            codec::check(&v)?;
            roots.push(k);
            roots.extend(v.atoms());
        }
        // Post-order, each atom once: a link's height after its members'.
        let mut height: HashMap<Handle, u32> = HashMap::default();
        let mut work: Vec<(Handle, bool)> = roots.into_iter().map(|h| (h, false)).collect();
        while let Some((x, members_done)) = work.pop() {
            if height.contains_key(&x) {
                continue;
            }
            if let Some(name) = space.name(x) {
                if name.contains('\0') {
                    let t = space.get_type(x).map_or("Node", |t| t.name());
                    return Err(StoreError::Unsupported(format!("({t} {name:?}) cannot be stored in PostgreSQL: its text holds no NUL character")));
                }
                height.insert(x, 0);
                continue;
            }
            let out = space.outgoing(x).unwrap_or_default();
            if members_done {
                let h = 1 + out.iter().map(|m| height.get(m).copied().unwrap_or(0)).max().unwrap_or(0);
                if h > i16::MAX as u32 {
                    return Err(StoreError::Unsupported(format!("a link nested more than {} deep cannot be stored in PostgreSQL", i16::MAX)));
                }
                height.insert(x, h);
            } else {
                work.push((x, true));
                work.extend(out.iter().filter(|&&m| !height.contains_key(&m)).map(|&m| (m, false)));
            }
        }
        Ok(())
    }

    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()> {
        self.ids.use_space(space);
        self.write(space, ops, &mut |_| {}).map(drop)
    }
}
