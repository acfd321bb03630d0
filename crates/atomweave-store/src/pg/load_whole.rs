//! Every stored atom and value loaded into a space, from one snapshot.
//!
//! Invariant: rows come height by height (a link after its members), then
//! the values, read and decoded by a second thread while this one adds
//! them; a run of rows (nodes, or links of one height) is added in one
//! bulk call, and a value only once every atom before it is added. A load
//! that stops mid-copy leaves the connection behind, not a half-read one.

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch, TruthValue};
use postgres::binary_copy::BinaryCopyOutIter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type as SqlType;
use postgres::Transaction;

use super::errors::pg_err;
use super::ids::type_codes_of;
use super::schema::{tv_of, UuidCache, READ_COLUMNS, READ_TYPES};
use super::{PgStore, REPORT};
use crate::type_codes::TypeCodes;
use crate::{codec, HashMap, Result, StoreError};

impl PgStore {
    /// `load_atomspace`: everything read in one snapshot, height by height,
    /// by a thread that decodes rows while this one adds them to the space.
    pub(super) fn load_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let url = self.url.clone();
        let mut client = self.client.take().expect("connected by flush or reload_types");
        let result = (|| -> Result<u64> {
            let mut t =
                client.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true).start().map_err(|e| pg_err(&url, e))?;
            let (top, count, last): (Option<i16>, i64, Option<i64>) = {
                let r = t.query_one("SELECT max(height), count(*), max(uuid) FROM atoms", &[]).map_err(|e| pg_err(&url, e))?;
                (r.get(0), r.get(1), r.get(2))
            };
            // The type table of this snapshot: the connection is busy with it.
            let types = type_codes_of(&t.query("SELECT code, name FROM atomweave_types", &[]).map_err(|e| pg_err(&url, e))?);
            let mut loader = Loader {
                space,
                ids: &mut self.ids,
                types,
                // Uuids come in blocks from 1, so they are dense enough to index a vector.
                known: Known::new(count, last.unwrap_or(0)),
                pending: Pending::default(),
                members: Vec::new(),
                added: 0,
            };
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Loaded>>(16);
            std::thread::scope(|sc| -> Result<()> {
                let reader = sc.spawn(|| read_all(&mut t, &url, top.unwrap_or(-1), tx));
                let added = (|| -> Result<()> {
                    let mut reported = 0;
                    for batch in rx {
                        if loader.added >= reported + REPORT {
                            reported = loader.added;
                            progress(loader.added);
                        }
                        batch.into_iter().try_for_each(|row| loader.take(row))?;
                    }
                    loader.add_pending()
                })();
                // A failure here hangs up the channel, which stops the reader.
                let read = reader.join().expect("the reader does not panic");
                added.and(read)
            })?;
            t.commit().map_err(|e| pg_err(&url, e))?;
            progress(loader.added);
            Ok(loader.added)
        })();
        // A load stopped mid-copy leaves the connection mid-stream: the next call makes a new one.
        if result.is_ok() {
            self.client = Some(client);
        }
        result
    }
}

/// The rows of a whole-space load, added to the space as they come.
struct Loader<'a> {
    space: &'a AtomSpace,
    ids: &'a mut UuidCache,
    /// The type table of the load's snapshot.
    types: TypeCodes<i16>,
    known: Known,
    /// Rows come height by height, so a run of them is added in one bulk
    /// call: nodes, or links of one height (whose members are all lower,
    /// so added already).
    pending: Pending,
    /// A link's members, resolved (a scratch list).
    members: Vec<Handle>,
    /// Atoms added so far.
    added: u64,
}

impl Loader<'_> {
    /// Takes one row: an atom joins the run of rows pending (added first
    /// when the atom cannot join it), a value is set once every atom read
    /// before it is added.
    fn take(&mut self, row: Loaded) -> Result<()> {
        match row {
            Loaded::Atom { uuid, code, height, name, outgoing, tv } => {
                let ty = self.types.type_of(code)?;
                match (name, outgoing) {
                    (Some(name), _) => {
                        if !self.pending.links.is_empty() {
                            self.add_pending()?;
                        }
                        self.pending.nodes.push(ty, &name);
                    }
                    (None, Some(members)) => {
                        if !self.pending.nodes.is_empty() || self.pending.rows.last().is_some_and(|r| r.1 != height) {
                            self.add_pending()?;
                        }
                        self.members.clear();
                        for m in members {
                            let h =
                                self.known.get(m).ok_or_else(|| StoreError::Corrupt(format!("link {uuid} holds atom {m}, which is not stored below it")))?;
                            self.members.push(h);
                        }
                        self.pending.links.push(ty, &self.members);
                    }
                    (None, None) => return Err(StoreError::Corrupt(format!("atom {uuid} has neither a name nor an outgoing set"))),
                }
                self.pending.rows.push((uuid, height, tv));
                if self.pending.rows.len() >= PENDING_ROWS {
                    self.add_pending()?;
                }
            }
            Loaded::Value { atom, key, bytes } => {
                self.add_pending()?;
                let known = &self.known;
                let handle = |u: i64| known.get(u).ok_or_else(|| StoreError::Corrupt(format!("a value refers to atom {u}, which is not stored")));
                let v = codec::decode(&bytes, &mut |a| handle(a as i64))?;
                self.space.set_value(handle(atom)?, handle(key)?, v)?;
            }
        }
        Ok(())
    }

    /// Adds the rows pending.
    fn add_pending(&mut self) -> Result<()> {
        self.added += self.pending.add(self.space, &mut self.known, self.ids)?;
        Ok(())
    }
}

/// A row read by a whole-space load.
enum Loaded {
    Atom { uuid: i64, code: i16, height: i16, name: Option<String>, outgoing: Option<Vec<i64>>, tv: TruthValue },
    Value { atom: i64, key: i64, bytes: Vec<u8> },
}

/// Reads every atom, height by height, then every value, in batches; stops
/// early when the receiver hangs up.
fn read_all(t: &mut Transaction<'_>, url: &str, top: i16, tx: std::sync::mpsc::SyncSender<Vec<Loaded>>) -> Result<()> {
    const ROWS: usize = 4096;
    let mut batch = Vec::with_capacity(ROWS);
    let send = |batch: &mut Vec<Loaded>| tx.send(std::mem::replace(batch, Vec::with_capacity(ROWS))).is_ok();
    for height in 0..=top {
        let reader =
            t.copy_out(&format!("COPY (SELECT {READ_COLUMNS} FROM atoms WHERE height = {height}) TO STDOUT (FORMAT binary)")).map_err(|e| pg_err(url, e))?;
        let mut rows = BinaryCopyOutIter::new(reader, &READ_TYPES);
        while let Some(r) = rows.next().map_err(|e| pg_err(url, e))? {
            batch.push(Loaded::Atom { uuid: r.get(0), code: r.get(1), height, name: r.get(3), outgoing: r.get(4), tv: tv_of([r.get(5), r.get(6), r.get(7)]) });
            if batch.len() == ROWS && !send(&mut batch) {
                return Ok(());
            }
        }
    }
    let reader = t.copy_out("COPY atom_values (atom, key, value) TO STDOUT (FORMAT binary)").map_err(|e| pg_err(url, e))?;
    let mut rows = BinaryCopyOutIter::new(reader, &[SqlType::INT8, SqlType::INT8, SqlType::BYTEA]);
    while let Some(r) = rows.next().map_err(|e| pg_err(url, e))? {
        batch.push(Loaded::Value { atom: r.get(0), key: r.get(1), bytes: r.get(2) });
        if batch.len() == ROWS && !send(&mut batch) {
            return Ok(());
        }
    }
    send(&mut batch);
    Ok(())
}

/// Rows read and not yet added: a run of nodes, or of links of one
/// height, with each row's uuid, height and truth value.
#[derive(Default)]
struct Pending {
    nodes: NodeBatch,
    links: LinkBatch,
    rows: Vec<(i64, i16, TruthValue)>,
}

/// Rows added in one bulk call, at most.
const PENDING_ROWS: usize = 8192;

impl Pending {
    /// Adds the rows (the nodes or the links) to `space`; how many.
    fn add(&mut self, space: &AtomSpace, known: &mut Known, ids: &mut UuidCache) -> Result<u64> {
        if self.rows.is_empty() {
            return Ok(0);
        }
        let handles = if self.nodes.is_empty() { space.add_links(&self.links)? } else { space.add_nodes(&self.nodes)? };
        for (h, &(uuid, height, tv)) in handles.into_iter().zip(&self.rows) {
            if !tv.is_default() {
                space.set_tv(h, tv)?;
            }
            known.insert(uuid, h);
            ids.insert(h, (uuid, height));
        }
        let added = self.rows.len() as u64;
        self.nodes.clear();
        self.links.clear();
        self.rows.clear();
        Ok(added)
    }
}

/// Handles of loaded uuids: a vector where the uuids are dense, else a map.
enum Known {
    Dense(Vec<u32>),
    Sparse(HashMap<i64, Handle>),
}

impl Known {
    fn new(count: i64, last: i64) -> Known {
        if last >= 0 && last <= 4 * count + (1 << 20) {
            Known::Dense(vec![u32::MAX; last as usize + 1])
        } else {
            Known::Sparse(HashMap::with_capacity_and_hasher(count as usize, Default::default()))
        }
    }

    fn get(&self, u: i64) -> Option<Handle> {
        match self {
            Known::Dense(v) => usize::try_from(u).ok().and_then(|i| v.get(i)).filter(|&&x| x != u32::MAX).map(|&x| Handle::from_u32(x)),
            Known::Sparse(m) => m.get(&u).copied(),
        }
    }

    fn insert(&mut self, u: i64, h: Handle) {
        match self {
            Known::Dense(v) if u >= 0 && (u as usize) < v.len() => v[u as usize] = h.to_u32(),
            Known::Dense(v) => {
                let mut m: HashMap<i64, Handle> = v.iter().enumerate().filter(|x| *x.1 != u32::MAX).map(|(i, &x)| (i as i64, Handle::from_u32(x))).collect();
                m.insert(u, h);
                *self = Known::Sparse(m);
            }
            Known::Sparse(m) => drop(m.insert(u, h)),
        }
    }
}
