//! The PostgreSQL store: a database server that many processes share.
//!
//! Schema (version [`SCHEMA`]), in the database the URL names:
//! - `atoms`: `uuid` (bigint, primary key); `type` (smallint, a code of
//!   `atomweave_types`); `height` (0 for a node, else one more than its
//!   tallest member: loads go by height, so members come first); `name`
//!   (nodes) or `outgoing` (links: the members' uuids in-line, as
//!   upstream's schema keeps them); `digest` (16 bytes of SHA-256 over the
//!   type and the name or the members: one unique content index whatever
//!   the name's length); the truth value in `tv_mean`, `tv_confidence`,
//!   `tv_count` (all NULL: the default; `tv_count` NULL: a simple one).
//!   Pages are left 15% free (`fillfactor`), so that a row whose truth
//!   value changes mostly stays on its page, an update that touches no
//!   index (30% faster updates in `persist-bench` for 10% more disk).
//!   Incoming sets are answered by three indexes on `outgoing`: b-trees
//!   on its first and its second member, and a GIN index of the links of
//!   three members or more. Most links have one or two members, and a
//!   b-tree builds in a fraction of the time a GIN index of every link
//!   takes (the most of a whole space's store, in schema version 1, which
//!   had that one GIN index and full pages). A version 1 store is moved to
//!   version 2 when it is opened, in one transaction that changes only its
//!   indexes and the fill of pages written after; stop the processes of an
//!   older atomweave first: one that has the store open would find
//!   incoming sets by reading the whole table.
//! - `atom_values`: `atom`, `key` (uuids), `value` (bytea, in the
//!   [`codec`] form): every value but the truth value.
//! - `atomweave_types` (code -> type name: a store survives changes to the
//!   type table), `atomweave_meta` (the schema version), and the sequence
//!   `atomweave_ids`, which hands out uuids in blocks of [`ID_BLOCK`] so
//!   that processes sharing the store never collide.
//!
//! Writes are batched as the LMDB store's are, and each batch is one
//! transaction: a crash, or a server that goes away, loses the batch in
//! flight and never a part of an atom. A batch lost with its connection is
//! kept and written again by the next call, which reconnects. A batch the
//! server rolls back for a deadlock with another writer's is tried again
//! (six times in all, after pauses that grow), and atoms go in in digest
//! order, so that writers of the same atoms seldom wait in a cycle. Atoms go in
//! by binary COPY into a staging table, then `INSERT .. ON CONFLICT` on the
//! digest, so another process storing the same atom at the same time
//! yields one row; a whole space stored into an empty store is copied
//! straight into `atoms` under a table lock (`pg/whole.rs`; unless the
//! space may see one content twice, not
//! [`is_chain`](AtomSpace::is_chain), which writes one copy of each
//! content, `AtomSpace::one_copy_each`). Loads are binary COPY too, height
//! by height, decoded on a second thread while the first adds atoms to the
//! space. Single-atom statements are prepared once per connection.
//!
//! A store uses one connection. A batch is one transaction, and
//! transactions cannot span connections, so a pool storing in parallel
//! would give up the all-or-nothing batch; the parallel work is the
//! server's (its index builds, and decoding on its side of the COPY).
//! Processes share a store by each opening their own.
//!
//! Citus (or another Postgres-compatible distributed engine): a unique
//! index there must include the distribution column. Distribute `atoms` on
//! `digest`, with the primary key made `(digest, uuid)` (uuids are unique
//! by the sequence already) and a plain index on `uuid`: content lookups,
//! the ones every store makes, then go to one shard, while by-uuid and
//! incoming-set reads fan out to all. Distribute `atom_values` on `atom`;
//! `atomweave_types` and `atomweave_meta` are reference tables. This
//! schema is not made that way here: it is what a deployment would change.

#[cfg(feature = "scratch-server")]
pub mod scratch;
mod whole;

use std::time::Duration;

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch, TruthValue, Type, Value};
use postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutIter};
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type as SqlType;
use postgres::{Client, NoTls, Transaction};
use sha2::{Digest, Sha256};

use crate::{add, codec, holds_only_live, is_tv_key, live_values, op_values, Batching, Op, Result, SpaceIds, StorageNode, StoreError};

type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;
type HashSet<K> = hashbrown::HashSet<K, foldhash::fast::RandomState>;

/// The schema version this code reads and writes.
pub const SCHEMA: u32 = 2;
/// Uuids a process takes from the shared sequence at a time.
pub const ID_BLOCK: i64 = 4096;
// Sets of uuids or digests are passed as arrays and joined with
// `unnest(..)`, on connections that do not hash or merge join: every
// statement here looks rows up by key, and for a batch of tens of
// thousands of keys the planner would otherwise scan the whole table
// (as it does for `= ANY(..)`), once per batch.

/// Rows between progress reports.
const REPORT: u64 = 1 << 16;

const CREATE: &str = "
CREATE TABLE atomweave_types (code smallint PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE SEQUENCE atomweave_ids INCREMENT BY 4096 START WITH 1;
CREATE TABLE atoms (
    uuid bigint NOT NULL,
    type smallint NOT NULL,
    height smallint NOT NULL,
    name text,
    outgoing bigint[],
    digest bytea NOT NULL,
    tv_mean double precision,
    tv_confidence double precision,
    tv_count double precision
) WITH (fillfactor = 85);
CREATE TABLE atom_values (atom bigint NOT NULL, key bigint NOT NULL, value bytea NOT NULL);
";

/// The indexes, made with the tables, and again after a whole space has
/// been copied into an empty store without them (building an index from
/// sorted rows is several times faster than growing it row by row).
const INDEXES: &str = "
ALTER TABLE atoms ADD CONSTRAINT atoms_pkey PRIMARY KEY (uuid);
CREATE UNIQUE INDEX atoms_digest ON atoms (digest);
ALTER TABLE atom_values ADD CONSTRAINT atom_values_pkey PRIMARY KEY (atom, key);
";
/// The indexes that find the links holding an atom; `holding!` is the
/// condition that uses them (each part implies its index's predicate).
const MEMBER_INDEXES: &str = "
CREATE INDEX atoms_member1 ON atoms ((outgoing[1])) WHERE cardinality(outgoing) > 0;
CREATE INDEX atoms_member2 ON atoms ((outgoing[2])) WHERE cardinality(outgoing) > 1;
CREATE INDEX atoms_members ON atoms USING gin (outgoing) WHERE cardinality(outgoing) > 2;
";
const DROP_INDEXES: &str = "
ALTER TABLE atoms DROP CONSTRAINT atoms_pkey;
DROP INDEX atoms_digest, atoms_member1, atoms_member2, atoms_members;
ALTER TABLE atom_values DROP CONSTRAINT atom_values_pkey;
";

/// Rows of links holding any of the uuids in `$1`, through [`MEMBER_INDEXES`].
macro_rules! holding {
    () => {
        "((cardinality(outgoing) > 0 AND outgoing[1] = ANY($1::bigint[])) \
          OR (cardinality(outgoing) > 1 AND outgoing[2] = ANY($1::bigint[])) \
          OR (cardinality(outgoing) > 2 AND outgoing && $1::bigint[]))"
    };
}

/// Per-connection settings and staging tables (emptied at every commit).
const STAGING: &str = "
SET enable_hashjoin = off;
SET enable_mergejoin = off;
CREATE TEMP TABLE aw_stage (LIKE atoms) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE aw_values (atom bigint, key bigint, value bytea) ON COMMIT DELETE ROWS;
";

const ATOM_COLUMNS: &str = "uuid, type, height, name, outgoing, digest, tv_mean, tv_confidence, tv_count";
const ATOM_TYPES: [SqlType; 9] =
    [SqlType::INT8, SqlType::INT2, SqlType::INT2, SqlType::TEXT, SqlType::INT8_ARRAY, SqlType::BYTEA, SqlType::FLOAT8, SqlType::FLOAT8, SqlType::FLOAT8];
const READ_COLUMNS: &str = "uuid, type, height, name, outgoing, tv_mean, tv_confidence, tv_count";
const READ_TYPES: [SqlType; 8] =
    [SqlType::INT8, SqlType::INT2, SqlType::INT2, SqlType::TEXT, SqlType::INT8_ARRAY, SqlType::FLOAT8, SqlType::FLOAT8, SqlType::FLOAT8];

/// The truth value as its three columns.
fn tv_columns(tv: TruthValue) -> [Option<f64>; 3] {
    match tv {
        _ if tv.is_default() => [None; 3],
        TruthValue::Simple { strength, confidence } => [Some(strength), Some(confidence), None],
        TruthValue::Count { mean, confidence, count } => [Some(mean), Some(confidence), Some(count)],
    }
}

fn tv_of(cols: [Option<f64>; 3]) -> TruthValue {
    match cols {
        [Some(m), Some(c), None] => TruthValue::simple(m, c),
        [Some(m), Some(c), Some(n)] => TruthValue::count(m, c, n),
        _ => TruthValue::DEFAULT,
    }
}

fn digest(tag: u8, code: i16, body: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update([tag]);
    h.update(code.to_le_bytes());
    h.update(body);
    h.finalize()[..16].try_into().expect("16 of 32 bytes")
}

fn node_digest(code: i16, name: &str) -> [u8; 16] {
    digest(b'N', code, name.as_bytes())
}

/// Unordered links' members are sorted by uuid first.
fn link_digest(code: i16, members: &[i64]) -> [u8; 16] {
    let bytes: Vec<u8> = members.iter().flat_map(|m| m.to_le_bytes()).collect();
    digest(b'L', code, &bytes)
}

/// An atom about to be written.
struct Row {
    h: Handle,
    uuid: i64,
    height: i16,
}

/// An atom read from `atoms`.
struct Stored {
    uuid: i64,
    code: i16,
    height: i16,
    name: Option<String>,
    outgoing: Option<Vec<i64>>,
    tv: TruthValue,
}

fn stored_of(row: &postgres::Row) -> Stored {
    Stored { uuid: row.get(0), code: row.get(1), height: row.get(2), name: row.get(3), outgoing: row.get(4), tv: tv_of([row.get(5), row.get(6), row.get(7)]) }
}

/// Store uuids and heights of atoms, by handle.
type Ids = HashMap<Handle, (i64, i16)>;

/// [`Ids`] kept across writes, for a whole space: by handle number (no
/// uuid is 0, which marks none).
type UuidCache = SpaceIds<(i64, i16)>;

/// Encoded values by (atom uuid, key uuid); `None` removes the value.
type ValueRows = HashMap<(i64, i64), Option<Vec<u8>>>;

pub struct PgStore {
    url: String,
    config: postgres::Config,
    client: Option<Client>,
    code_of_type: HashMap<Type, i16>,
    names_of_code: HashMap<i16, String>,
    /// Store uuids (and heights) of atoms of one space, as found or made.
    ids: UuidCache,
    pending: Vec<Op>,
    pending_space: Option<AtomSpace>,
    /// Uuids taken from the sequence and not used yet.
    free: std::ops::Range<i64>,
    /// The schema is there: connections get their staging tables.
    ready: bool,
    /// Statements of single-atom work, prepared once per connection.
    statements: HashMap<String, postgres::Statement>,
}

impl PgStore {
    /// Connects to the database `url` names, making the schema if the
    /// database has none (unless `create` is false).
    pub fn open(url: &str, create: bool) -> Result<PgStore> {
        let open_err = |msg: String| StoreError::Open { url: url.to_string(), msg };
        let mut config: postgres::Config = url.parse().map_err(|e| open_err(format!("not a PostgreSQL URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let mut store = PgStore {
            url: url.to_string(),
            config,
            client: None,
            code_of_type: HashMap::default(),
            names_of_code: HashMap::default(),
            ids: UuidCache::new((0, 0)),
            pending: Vec::new(),
            pending_space: None,
            free: 0..0,
            ready: false,
            statements: HashMap::default(),
        };
        // Connected here, not through `client`, whose errors name the URL
        // and a batch in flight: `Open` names the URL once, and no batch is.
        store.client = Some(store.config.connect(NoTls).map_err(|e| open_err(connect_err(&e)))?);
        store.make_schema(create).map_err(|e| match e {
            StoreError::Open { .. } => e,
            e => open_err(e.to_string()),
        })?;
        store.ready = true;
        store.client = None;
        store.reload_types()?;
        Ok(store)
    }

    fn make_schema(&mut self, create: bool) -> Result<()> {
        let url = self.url.clone();
        let open_err = |msg: String| StoreError::Open { url: url.clone(), msg };
        let mut t = self.client()?.transaction().map_err(|e| pg_err(&url, e))?;
        // Two processes opening a new database at once make the schema once.
        t.execute("SELECT pg_advisory_xact_lock(7201001)", &[]).map_err(|e| pg_err(&url, e))?;
        let has_meta: bool = t.query_one("SELECT to_regclass('atomweave_meta') IS NOT NULL", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        if has_meta {
            let found: Option<String> =
                t.query_opt("SELECT value FROM atomweave_meta WHERE key = 'schema'", &[]).map_err(|e| pg_err(&url, e))?.map(|r| r.get(0));
            match found.as_deref().map(str::parse::<u32>) {
                Some(Ok(SCHEMA)) => return t.commit().map_err(|e| pg_err(&url, e)),
                Some(Ok(1)) => {
                    // Version 1 differs only in its one GIN index of every link, and full pages.
                    // The new indexes are built first (readers go on meanwhile,
                    // writers wait), the old one dropped last, briefly locking all out.
                    let moved = t
                        .batch_execute("SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL lock_timeout = '60s'")
                        .and_then(|()| t.batch_execute(MEMBER_INDEXES))
                        .and_then(|()| t.batch_execute("DROP INDEX atoms_outgoing; ALTER TABLE atoms SET (fillfactor = 85)"))
                        .and_then(|()| t.execute("UPDATE atomweave_meta SET value = $1 WHERE key = 'schema'", &[&SCHEMA.to_string()]))
                        .and_then(|_| t.commit());
                    return moved.map_err(|e| {
                        open_err(format!(
                            "the store has schema version 1, which this atomweave moves to version {SCHEMA} when it opens it (its indexes and page fill only), \
                             and could not: {} (open it once as the owner of its tables, on the primary server)",
                            describe(&e)
                        ))
                    });
                }
                Some(Ok(v)) => {
                    return Err(open_err(format!(
                        "the store has schema version {v}; this atomweave reads version {SCHEMA} (copy it with the atomweave that wrote it)"
                    )))
                }
                _ => return Err(open_err("atomweave_meta has no schema version: not an atomweave store".into())),
            }
        }
        if !create {
            return Err(open_err("no atomweave store in this database".into()));
        }
        let has_atoms: bool = t.query_one("SELECT to_regclass('atoms') IS NOT NULL", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        if has_atoms {
            return Err(open_err("the database has an `atoms` table but no atomweave_meta: not an atomweave store".into()));
        }
        t.batch_execute(CREATE).map_err(|e| pg_err(&url, e))?;
        t.batch_execute(INDEXES).map_err(|e| pg_err(&url, e))?;
        t.batch_execute(MEMBER_INDEXES).map_err(|e| pg_err(&url, e))?;
        t.execute("CREATE TABLE atomweave_meta (key text PRIMARY KEY, value text NOT NULL)", &[]).map_err(|e| pg_err(&url, e))?;
        t.execute("INSERT INTO atomweave_meta VALUES ('schema', $1)", &[&SCHEMA.to_string()]).map_err(|e| pg_err(&url, e))?;
        t.commit().map_err(|e| pg_err(&url, e))
    }

    /// The connection, made again if it was lost.
    fn client(&mut self) -> Result<&mut Client> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.client = None;
            self.statements.clear();
            let mut c = self.config.connect(NoTls).map_err(|e| pg_err(&self.url, e))?;
            if self.ready {
                c.batch_execute(STAGING).map_err(|e| pg_err(&self.url, e))?;
            }
            self.client = Some(c);
        }
        Ok(self.client.as_mut().expect("connected above"))
    }

    /// Runs a statement prepared on this connection (prepared now if new).
    fn query(&mut self, sql: &str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> Result<Vec<postgres::Row>> {
        let url = self.url.clone();
        self.client()?;
        let statement = match self.statements.get(sql) {
            Some(st) => st.clone(),
            None => {
                let st = self.client.as_mut().expect("connected above").prepare(sql).map_err(|e| pg_err(&url, e))?;
                self.statements.insert(sql.to_string(), st.clone());
                st
            }
        };
        self.client.as_mut().expect("connected above").query(&statement, params).map_err(|e| pg_err(&url, e))
    }

    /// Bytes the store's tables and indexes take on disk.
    pub fn disk_bytes(&mut self) -> Result<u64> {
        let url = self.url.clone();
        let n: i64 = self
            .client()?
            .query_one("SELECT pg_total_relation_size('atoms') + pg_total_relation_size('atom_values')", &[])
            .map_err(|e| pg_err(&url, e))?
            .get(0);
        Ok(n as u64)
    }

    /// The process id of the server process serving this connection.
    pub fn backend_pid(&mut self) -> Result<u32> {
        let url = self.url.clone();
        let pid: i32 = self.client()?.query_one("SELECT pg_backend_pid()", &[]).map_err(|e| pg_err(&url, e))?.get(0);
        Ok(pid as u32)
    }

    fn reload_types(&mut self) -> Result<()> {
        let url = self.url.clone();
        let rows = self.client()?.query("SELECT code, name FROM atomweave_types", &[]).map_err(|e| pg_err(&url, e))?;
        self.names_of_code.clear();
        self.code_of_type.clear();
        for r in rows {
            let (code, name): (i16, String) = (r.get(0), r.get(1));
            if let Some(t) = Type::from_name(&name) {
                self.code_of_type.insert(t, code);
            }
            self.names_of_code.insert(code, name);
        }
        Ok(())
    }

    /// The store's code for `t`, if it has one (rereading the table once:
    /// another process may have added it).
    fn code_known(&mut self, t: Type) -> Result<Option<i16>> {
        if let Some(&c) = self.code_of_type.get(&t) {
            return Ok(Some(c));
        }
        self.reload_types()?;
        Ok(self.code_of_type.get(&t).copied())
    }

    /// Gives every type in `ts` a code, in transactions of its own (before a
    /// write's, so a failed write leaves no code half made).
    fn ensure_codes(&mut self, ts: impl IntoIterator<Item = Type>) -> Result<()> {
        let url = self.url.clone();
        for t in ts {
            if self.code_of_type.contains_key(&t) {
                continue;
            }
            loop {
                // Two processes may pick the same next code: one wins, the other tries again.
                let c = self.client()?;
                c.execute(
                    "INSERT INTO atomweave_types (code, name) SELECT coalesce(max(code), 0) + 1, $1 FROM atomweave_types ON CONFLICT DO NOTHING",
                    &[&t.name()],
                )
                .map_err(|e| pg_err(&url, e))?;
                if let Some(r) = c.query_opt("SELECT code FROM atomweave_types WHERE name = $1", &[&t.name()]).map_err(|e| pg_err(&url, e))? {
                    let code: i16 = r.get(0);
                    self.code_of_type.insert(t, code);
                    self.names_of_code.insert(code, t.name().to_string());
                    break;
                }
            }
        }
        Ok(())
    }

    fn type_of_code(&mut self, code: i16) -> Result<Type> {
        if !self.names_of_code.contains_key(&code) {
            self.reload_types()?;
        }
        let name = self.names_of_code.get(&code).ok_or_else(|| StoreError::Corrupt(format!("type code {code} is not in the store's type table")))?;
        atomweave::types::from_name_or_family(name)
            .ok_or_else(|| StoreError::Backend(format!("the store holds atoms of type {name}, which is not known here (register it first)")))
    }

    /// `n` fresh uuids.
    fn take_ids(&mut self, n: usize) -> Result<Vec<i64>> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n && !self.free.is_empty() {
            out.push(self.free.start);
            self.free.start += 1;
        }
        if out.len() < n {
            let blocks = ((n - out.len()) as i64 + ID_BLOCK - 1) / ID_BLOCK;
            let url = self.url.clone();
            let rows = self.client()?.query("SELECT nextval('atomweave_ids') FROM generate_series(1, $1::bigint)", &[&blocks]).map_err(|e| pg_err(&url, e))?;
            for r in rows {
                let base: i64 = r.get(0);
                let end = out.len() + (n - out.len()).min(ID_BLOCK as usize);
                let used = (end - out.len()) as i64;
                out.extend(base..base + used);
                if used < ID_BLOCK {
                    self.free = base + used..base + ID_BLOCK;
                }
            }
        }
        Ok(out)
    }

    /// Applies the pending writes in one transaction ([`Batching::flush_pending`]).
    fn flush(&mut self) -> Result<()> {
        self.flush_pending()
    }

    /// Writes `ops` in one transaction, again (after a pause that grows,
    /// at random) when the server rolled it back for a conflict with
    /// another writer's. Returns the atoms written.
    fn write(&mut self, space: &AtomSpace, ops: &[Op], progress: &mut dyn FnMut(u64)) -> Result<u64> {
        retry_conflicts(|| self.write_once(space, ops, progress))
    }

    /// [`write`](Self::write), tried once.
    fn write_once(&mut self, space: &AtomSpace, ops: &[Op], progress: &mut dyn FnMut(u64)) -> Result<u64> {
        // Atoms (and keys) removed from the space since are not stored.
        let live = |h: &Handle| space.contains(*h);
        let mut full: Vec<Handle> = Vec::new();
        let mut needed: Vec<Handle> = Vec::new();
        let mut snapshot: HashSet<(Handle, Option<Handle>)> = HashSet::default();
        for op in ops {
            match op {
                Op::Atom(h) if live(h) => {
                    full.push(*h);
                    snapshot.insert((*h, None));
                    needed.push(*h);
                    for (k, v) in live_values(space, *h) {
                        // The truth value lives in the atom's row: its key is not stored.
                        if !is_tv_key(space, k) {
                            needed.push(k);
                            needed.extend(v.atoms());
                        }
                    }
                }
                Op::Value(h, k) if live(h) && live(k) => {
                    snapshot.insert((*h, Some(*k)));
                    needed.push(*h);
                    if !is_tv_key(space, *k) {
                        needed.push(*k);
                    }
                    if let Some(v) = space.get_value(*h, *k).filter(|v| holds_only_live(space, v)) {
                        needed.extend(v.atoms());
                    }
                }
                Op::Update(h, k, _) if live(h) && live(k) => {
                    needed.push(*h);
                    if !is_tv_key(space, *k) {
                        needed.push(*k);
                    }
                }
                _ => {}
            }
        }
        // Atoms the store has already are found first (one query per
        // height), not staged and bounced off the unique index.
        self.lookup(space, &needed)?;
        let rows = self.plan(space, &needed)?;
        let url = self.url.clone();
        let mut fresh: HashSet<Handle> = HashSet::default();
        let mut made: Ids = HashMap::default();
        let mut client = self.client.take().expect("plan connected");
        let result = (|| -> Result<u64> {
            let mut t = client.transaction().map_err(|e| pg_err(&url, e))?;
            let written = self.write_atoms(&mut t, space, rows, &mut made, &mut fresh, progress)?;
            let id = |h: Handle, made: &Ids| made.get(&h).or_else(|| self.ids.get(&h)).map(|x| x.0).expect("planned");
            // Stored values of atoms stored again are replaced, not merged.
            let restored: Vec<i64> = full.iter().filter(|h| !fresh.contains(*h)).map(|&h| id(h, &made)).collect();
            if !restored.is_empty() {
                t.execute("DELETE FROM atom_values v USING unnest($1::bigint[]) AS d(atom) WHERE v.atom = d.atom", &[&restored])
                    .map_err(|e| pg_err(&url, e))?;
            }
            let mut tvs: HashMap<i64, TruthValue> = HashMap::default();
            let mut values: ValueRows = HashMap::default();
            let encode = |v: &Value, made: &Ids| -> Result<Vec<u8>> {
                let mut bytes = Vec::new();
                codec::encode(v, &mut bytes, &mut |a| Ok(id(a, made) as u64))?;
                Ok(bytes)
            };
            for &h in &full {
                let u = id(h, &made);
                if !fresh.contains(&h) {
                    tvs.insert(u, space.get_tv(h).unwrap_or_default());
                }
                for (k, v) in live_values(space, h) {
                    if !is_tv_key(space, k) {
                        values.insert((u, id(k, &made)), Some(encode(&v, &made)?));
                    }
                }
            }
            let mut updates: Vec<(Handle, Handle, &[f64])> = Vec::new();
            for op in ops {
                match op {
                    Op::Value(h, k) if live(h) && live(k) => {
                        let u = id(*h, &made);
                        if is_tv_key(space, *k) {
                            tvs.insert(u, space.get_tv(*h).unwrap_or_default());
                        } else {
                            let v = space.get_value(*h, *k);
                            if v.as_ref().is_some_and(|v| !holds_only_live(space, v)) {
                                continue;
                            }
                            values.insert((u, id(*k, &made)), v.map(|v| encode(&v, &made)).transpose()?);
                        }
                    }
                    // The space's value already counts updates of atoms or values stored in this batch.
                    Op::Update(h, k, _) if snapshot.contains(&(*h, None)) || snapshot.contains(&(*h, Some(*k))) => {}
                    Op::Update(h, k, delta) if live(h) && live(k) => {
                        if fresh.contains(h) {
                            // First stored now: the store takes the space's value, which counts the update.
                            let u = id(*h, &made);
                            match space.get_value(*h, *k) {
                                _ if is_tv_key(space, *k) => drop(tvs.insert(u, space.get_tv(*h).unwrap_or_default())),
                                v => drop(values.insert((u, id(*k, &made)), v.map(|v| encode(&v, &made)).transpose()?)),
                            }
                        } else {
                            updates.push((*h, *k, delta));
                        }
                    }
                    _ => {}
                }
            }
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
    fn copy_row(
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
        let code = self.code_of_type[&ty];
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
        updates: &[(Handle, Handle, &[f64])],
        made: &Ids,
        tvs: &mut HashMap<i64, TruthValue>,
        values: &mut ValueRows,
    ) -> Result<()> {
        let url = &self.url;
        let id = |h: &Handle| made.get(h).or_else(|| self.ids.get(h)).map(|x| x.0).expect("planned");
        let tv_atoms: Vec<i64> = updates.iter().filter(|u| is_tv_key(space, u.1)).map(|u| id(&u.0)).collect();
        let mut stored_tvs: HashMap<i64, TruthValue> = t
            .query(
                "SELECT a.uuid, a.tv_mean, a.tv_confidence, a.tv_count FROM unnest($1::bigint[]) AS d(uuid) JOIN atoms a USING (uuid) FOR UPDATE OF a",
                &[&tv_atoms],
            )
            .map_err(|e| pg_err(url, e))?
            .iter()
            .map(|r| (r.get(0), tv_of([r.get(1), r.get(2), r.get(3)])))
            .collect();
        let (atoms, keys): (Vec<i64>, Vec<i64>) = updates.iter().filter(|u| !is_tv_key(space, u.1)).map(|u| (id(&u.0), id(&u.1))).unzip();
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
            if is_tv_key(space, k) {
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

    fn write_values(&self, t: &mut Transaction<'_>, tvs: HashMap<i64, TruthValue>, values: ValueRows) -> Result<()> {
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

    /// The uuids of those of `hs` the store holds, without storing
    /// anything; atoms not stored are left out.
    fn lookup(&mut self, space: &AtomSpace, hs: &[Handle]) -> Result<HashMap<Handle, i64>> {
        // Every atom below, by height, so members are resolved first.
        let mut order: Vec<(i16, Handle)> = Vec::new();
        let mut seen: HashMap<Handle, i16> = HashMap::default();
        let mut stack: Vec<(Handle, bool)> = hs.iter().map(|&h| (h, false)).collect();
        while let Some((h, expanded)) = stack.pop() {
            if seen.contains_key(&h) {
                continue;
            }
            if let Some(&(_, ht)) = self.ids.get(&h) {
                seen.insert(h, ht);
                continue;
            }
            let members = space.outgoing(h).ok_or(atomweave::Error::InvalidHandle(h))?;
            if !expanded && !members.is_empty() {
                stack.push((h, true));
                stack.extend(members.iter().filter(|m| !seen.contains_key(*m)).map(|&m| (m, false)));
                continue;
            }
            let ht = if space.is_link(h) { members.iter().map(|m| seen[m]).max().unwrap_or(0).saturating_add(1) } else { 0 };
            seen.insert(h, ht);
            order.push((ht, h));
        }
        order.sort_by_key(|x| x.0);
        let mut reloaded = false;
        let mut start = 0;
        while start < order.len() {
            let end = start + order[start..].iter().take_while(|x| x.0 == order[start].0).count();
            let mut digests: Vec<Vec<u8>> = Vec::new();
            let mut of_digest: HashMap<[u8; 16], Handle> = HashMap::default();
            for &(_, h) in &order[start..end] {
                let t = space.get_type(h).expect("walked");
                let code = match self.code_of_type.get(&t) {
                    Some(&c) => c,
                    None if !reloaded => {
                        // Another process may have added the type: reread once per lookup.
                        reloaded = true;
                        match self.code_known(t)? {
                            Some(c) => c,
                            None => continue,
                        }
                    }
                    None => continue,
                };
                let d = if let Some(name) = space.name(h) {
                    node_digest(code, name)
                } else {
                    let members: Option<Vec<i64>> = space.outgoing(h).expect("walked").iter().map(|m| self.ids.get(m).map(|x| x.0)).collect();
                    // A member not stored: neither is the link.
                    let Some(mut members) = members else { continue };
                    if t.is_unordered() {
                        members.sort_unstable();
                    }
                    link_digest(code, &members)
                };
                digests.push(d.to_vec());
                of_digest.insert(d, h);
            }
            if !digests.is_empty() {
                for r in self.query("SELECT a.digest, a.uuid, a.height FROM unnest($1::bytea[]) AS d(digest) JOIN atoms a USING (digest)", &[&digests])? {
                    let d: Vec<u8> = r.get(0);
                    if let Some(&h) = d.as_slice().try_into().ok().and_then(|d: [u8; 16]| of_digest.get(&d)) {
                        self.ids.insert(h, (r.get(1), r.get(2)));
                    }
                }
            }
            start = end;
        }
        Ok(hs.iter().filter_map(|h| self.ids.get(h).map(|x| (*h, x.0))).collect())
    }

    fn lookup_one(&mut self, space: &AtomSpace, h: Handle) -> Result<Option<i64>> {
        Ok(self.lookup(space, &[h])?.get(&h).copied())
    }

    /// The stored atoms `uuids` (and their members) added to the space, with
    /// their truth values; `known` maps uuids already in the space.
    fn materialize(&mut self, space: &AtomSpace, uuids: &[i64], known: &mut HashMap<i64, Handle>) -> Result<()> {
        let mut rows: Vec<Stored> = Vec::new();
        let mut asked: HashSet<i64> = HashSet::default();
        let mut frontier: Vec<i64> = uuids.iter().copied().filter(|u| !known.contains_key(u)).collect();
        while !frontier.is_empty() {
            frontier.retain(|u| asked.insert(*u));
            if frontier.is_empty() {
                break;
            }
            let got = self.query(&format!("SELECT {READ_COLUMNS} FROM unnest($1::bigint[]) AS d(uuid) JOIN atoms USING (uuid)"), &[&frontier])?;
            if got.len() < frontier.len() {
                let found: HashSet<i64> = got.iter().map(|r| r.get(0)).collect();
                let missing = frontier.iter().find(|u| !found.contains(*u)).expect("one missing");
                return Err(StoreError::Corrupt(format!("atom {missing} is referred to but not stored")));
            }
            frontier = Vec::new();
            for r in &got {
                let s = stored_of(r);
                frontier.extend(s.outgoing.iter().flatten().filter(|m| !known.contains_key(*m)));
                rows.push(s);
            }
        }
        rows.sort_by_key(|s| s.height);
        for s in rows {
            self.add_stored(space, &s, known)?;
        }
        Ok(())
    }

    fn add_stored(&mut self, space: &AtomSpace, s: &Stored, known: &mut HashMap<i64, Handle>) -> Result<Handle> {
        let t = self.type_of_code(s.code)?;
        let h = match (&s.name, &s.outgoing) {
            (Some(name), None) => space.add_node(t, name)?,
            (None, Some(out)) => {
                let members = out
                    .iter()
                    .map(|m| known.get(m).copied().ok_or_else(|| StoreError::Corrupt(format!("link {} holds atom {m}, which is not stored below it", s.uuid))))
                    .collect::<Result<Vec<_>>>()?;
                space.add_link(t, &members)?
            }
            _ => return Err(StoreError::Corrupt(format!("atom {} has both or neither of a name and an outgoing set", s.uuid))),
        };
        if !s.tv.is_default() {
            space.set_tv(h, s.tv)?;
        }
        known.insert(s.uuid, h);
        self.ids.insert(h, (s.uuid, s.height));
        Ok(h)
    }

    /// Loads the stored values of atoms `uuids` (in `known`); `key` limits them to one key.
    fn load_values(&mut self, space: &AtomSpace, uuids: &[i64], key: Option<i64>, known: &mut HashMap<i64, Handle>) -> Result<usize> {
        let rows = match key {
            None => self.query("SELECT v.atom, v.key, v.value FROM unnest($1::bigint[]) AS d(atom) JOIN atom_values v USING (atom)", &[&uuids])?,
            Some(k) => self
                .query("SELECT v.atom, v.key, v.value FROM unnest($1::bigint[]) AS d(atom) JOIN atom_values v USING (atom) WHERE v.key = $2", &[&uuids, &k])?,
        };
        let mut referred: Vec<i64> = Vec::new();
        for r in &rows {
            referred.push(r.get(1));
            let bytes: &[u8] = r.get(2);
            codec::decode(bytes, &mut |a| {
                referred.push(a as i64);
                Ok(Handle::from_u32(0))
            })?;
        }
        self.materialize(space, &referred, known)?;
        for r in &rows {
            let (atom, k, bytes): (i64, i64, &[u8]) = (r.get(0), r.get(1), r.get(2));
            let v = codec::decode(bytes, &mut |a| Ok(known[&(a as i64)]))?;
            space.set_value(known[&atom], known[&k], v)?;
        }
        Ok(rows.len())
    }

    fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(id) = self.lookup_one(space, h)? else { return Ok(0) };
        let code = match t {
            Some(t) => match self.code_known(t)? {
                Some(c) => Some(c),
                None => return Ok(0),
            },
            None => None,
        };
        let mut known: HashMap<i64, Handle> = HashMap::default();
        known.insert(id, h);
        let mut visited: HashSet<i64> = HashSet::default();
        visited.insert(id);
        let mut work = vec![id];
        let mut loaded = 0;
        while !work.is_empty() {
            let holders: Vec<i64> = match code {
                Some(c) => self.query(concat!("SELECT DISTINCT uuid FROM atoms WHERE ", holding!(), " AND type = $2"), &[&work, &c])?,
                None => self.query(concat!("SELECT DISTINCT uuid FROM atoms WHERE ", holding!()), &[&work])?,
            }
            .iter()
            .map(|r| r.get(0))
            .filter(|u| visited.insert(*u))
            .collect();
            self.materialize(space, &holders, &mut known)?;
            self.load_values(space, &holders, None, &mut known)?;
            loaded += holders.len();
            work = if recursive { holders } else { Vec::new() };
        }
        Ok(loaded)
    }
}

impl PgStore {
    /// Checks the store's invariants: every member of a stored link is
    /// stored below it, every value belongs to a stored atom under a stored
    /// key, every type code is in the type table. Returns the number of atoms.
    pub fn check(&mut self) -> Result<u64> {
        self.flush()?;
        let url = self.url.clone();
        let c = self.client()?;
        let mut count = |sql: &str| -> Result<i64> { Ok(c.query_one(sql, &[]).map_err(|e| pg_err(&url, e))?.get(0)) };
        let checks = [
            ("SELECT count(*) FROM atoms a, unnest(a.outgoing) m WHERE NOT EXISTS (SELECT 1 FROM atoms b WHERE b.uuid = m AND b.height < a.height)", "links hold atoms that are not stored below them"),
            ("SELECT count(*) FROM atom_values v WHERE NOT EXISTS (SELECT 1 FROM atoms a WHERE a.uuid = v.atom) OR NOT EXISTS (SELECT 1 FROM atoms a WHERE a.uuid = v.key)", "values belong to atoms or keys that are not stored"),
            ("SELECT count(*) FROM atoms a WHERE NOT EXISTS (SELECT 1 FROM atomweave_types t WHERE t.code = a.type)", "atoms have type codes missing from the type table"),
            ("SELECT count(*) FROM atoms WHERE (name IS NULL) = (outgoing IS NULL)", "atoms have both or neither of a name and an outgoing set"),
        ];
        for (sql, what) in checks {
            let n = count(sql)?;
            if n > 0 {
                return Err(StoreError::Corrupt(format!("{n} {what}")));
            }
        }
        Ok(count("SELECT count(*) FROM atoms")? as u64)
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

/// Handles of loaded uuids: a vector where the uuids are dense, else a map.
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

/// What the driver says went wrong: the server's message (and detail), or
/// the error and its cause.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_string(),
        };
    }
    match std::error::Error::source(e) {
        Some(why) => format!("{e}: {why}"),
        None => e.to_string(),
    }
}

/// Why a first connection failed: the server's message (a wrong password,
/// a missing database), or that it cannot be reached and why.
fn connect_err(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(_) => describe(e),
        None => format!("the PostgreSQL server cannot be reached ({})", describe(e)),
    }
}

/// How often a batch is tried when the server rolls it back for a conflict
/// with another writer ([`PgStore::write`]).
const CONFLICT_TRIES: usize = 6;

/// Up to `ms` milliseconds, drawn from the clock's nanoseconds: writers
/// that conflicted do not try again in step.
fn jitter_ms(ms: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    u64::from(nanos) % ms.max(1)
}

/// `attempt`, a transaction, tried again after a pause that grows (at
/// random) while the server rolls it back for a conflict with another
/// writer's, [`CONFLICT_TRIES`] times in all.
fn retry_conflicts<T>(mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut pause_ms = 10u64;
    for _ in 1..CONFLICT_TRIES {
        match attempt() {
            Err(StoreError::Conflict(_)) => {
                std::thread::sleep(Duration::from_millis(pause_ms / 2 + jitter_ms(pause_ms)));
                pause_ms *= 2;
            }
            done => return done,
        }
    }
    attempt().map_err(|e| match e {
        StoreError::Conflict(why) => StoreError::Conflict(format!("{why} (the batch was tried {CONFLICT_TRIES} times; none of it was stored)")),
        e => e,
    })
}

/// A clear error from the driver: the server's message, or that the
/// server cannot be reached; a deadlock or serialization failure is a
/// [`StoreError::Conflict`], which [`retry_conflicts`] tries again.
fn pg_err(url: &str, e: postgres::Error) -> StoreError {
    use postgres::error::SqlState;
    if e.code().is_some_and(|c| *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE) {
        return StoreError::Conflict(format!("postgres: {}", describe(&e)));
    }
    if e.as_db_error().is_none() && (e.is_closed() || std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>())) {
        return StoreError::Backend(format!(
            "{url}: the PostgreSQL server cannot be reached or went away ({e}); nothing of the batch in flight was stored, and the next call reconnects"
        ));
    }
    StoreError::Backend(format!("postgres: {}", describe(&e)))
}

impl StorageNode for PgStore {
    database_calls!();

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(id) = self.lookup_one(space, h)? else { return Ok(false) };
        let Some(r) = self.query("SELECT tv_mean, tv_confidence, tv_count FROM atoms WHERE uuid = $1", &[&id])?.into_iter().next() else {
            return Ok(false);
        };
        space.set_tv(h, tv_of([r.get(0), r.get(1), r.get(2)]))?;
        let mut known = HashMap::default();
        known.insert(id, h);
        self.load_values(space, &[id], None, &mut known)?;
        Ok(true)
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(id) = self.lookup_one(space, h)? else { return Ok(false) };
        if is_tv_key(space, key) {
            let Some(r) = self.query("SELECT tv_mean, tv_confidence, tv_count FROM atoms WHERE uuid = $1", &[&id])?.into_iter().next() else {
                return Ok(false);
            };
            space.set_tv(h, tv_of([r.get(0), r.get(1), r.get(2)]))?;
            return Ok(true);
        }
        let Some(key_id) = self.lookup_one(space, key)? else { return Ok(false) };
        let mut known = HashMap::default();
        known.insert(id, h);
        known.insert(key_id, key);
        Ok(self.load_values(space, &[id], Some(key_id), &mut known)? > 0)
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(code) = self.code_known(t)? else { return Ok(0) };
        let uuids: Vec<i64> = self.query("SELECT uuid FROM atoms WHERE type = $1", &[&code])?.iter().map(|r| r.get(0)).collect();
        let mut known = HashMap::default();
        self.materialize(space, &uuids, &mut known)?;
        self.load_values(space, &uuids, None, &mut known)?;
        Ok(uuids.len())
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.ids.use_space(space);
        self.reload_types()?;
        let url = self.url.clone();
        // Everything is read in one snapshot, height by height, by a thread
        // that decodes rows while this one adds them to the space.
        let mut client = self.client.take().expect("connected by flush or reload_types");
        let result = (|| -> Result<u64> {
            let mut t =
                client.build_transaction().isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true).start().map_err(|e| pg_err(&url, e))?;
            let (top, count, last): (Option<i16>, i64, Option<i64>) = {
                let r = t.query_one("SELECT max(height), count(*), max(uuid) FROM atoms", &[]).map_err(|e| pg_err(&url, e))?;
                (r.get(0), r.get(1), r.get(2))
            };
            // The type table of this snapshot: the connection is busy with it.
            let names: HashMap<i16, String> =
                t.query("SELECT code, name FROM atomweave_types", &[]).map_err(|e| pg_err(&url, e))?.iter().map(|r| (r.get(0), r.get(1))).collect();
            // Uuids come in blocks from 1, so they are dense enough to index a vector.
            let mut known = Known::new(count, last.unwrap_or(0));
            let mut types_of: HashMap<i16, Type> = HashMap::default();
            let mut n = 0u64;
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Loaded>>(16);
            std::thread::scope(|sc| -> Result<()> {
                let reader = sc.spawn(|| read_all(&mut t, &url, top.unwrap_or(-1), tx));
                let added = (|| -> Result<()> {
                    // Rows come height by height, so a run of them is added in
                    // one bulk call: nodes, or links of one height (whose
                    // members are all lower, so added already).
                    let mut pending = Pending::default();
                    let mut reported = 0;
                    for batch in rx {
                        if n >= reported + REPORT {
                            reported = n;
                            progress(n);
                        }
                        for row in batch {
                            match row {
                                Loaded::Atom { uuid, code, height, name, outgoing, tv } => {
                                    let ty = match types_of.get(&code) {
                                        Some(&t) => t,
                                        None => {
                                            let name = names
                                                .get(&code)
                                                .ok_or_else(|| StoreError::Corrupt(format!("type code {code} is not in the store's type table")))?;
                                            let t = atomweave::types::from_name_or_family(name).ok_or_else(|| {
                                                StoreError::Backend(format!(
                                                    "the store holds atoms of type {name}, which is not known here (register it first)"
                                                ))
                                            })?;
                                            *types_of.entry(code).or_insert(t)
                                        }
                                    };
                                    match (name, outgoing) {
                                        (Some(name), _) => {
                                            if !pending.links.is_empty() {
                                                n += pending.add(space, &mut known, &mut self.ids)?;
                                            }
                                            pending.nodes.push(ty, &name);
                                        }
                                        (None, Some(members)) => {
                                            if !pending.nodes.is_empty() || pending.rows.last().is_some_and(|r| r.1 != height) {
                                                n += pending.add(space, &mut known, &mut self.ids)?;
                                            }
                                            let mut resolved = Vec::with_capacity(members.len());
                                            for m in members {
                                                resolved.push(
                                                    known.get(m).ok_or_else(|| {
                                                        StoreError::Corrupt(format!("link {uuid} holds atom {m}, which is not stored below it"))
                                                    })?,
                                                );
                                            }
                                            pending.links.push(ty, &resolved);
                                        }
                                        (None, None) => return Err(StoreError::Corrupt(format!("atom {uuid} has neither a name nor an outgoing set"))),
                                    }
                                    pending.rows.push((uuid, height, tv));
                                    if pending.rows.len() >= PENDING_ROWS {
                                        n += pending.add(space, &mut known, &mut self.ids)?;
                                    }
                                }
                                Loaded::Value { atom, key, bytes } => {
                                    n += pending.add(space, &mut known, &mut self.ids)?;
                                    let handle =
                                        |u: i64| known.get(u).ok_or_else(|| StoreError::Corrupt(format!("a value refers to atom {u}, which is not stored")));
                                    let v = codec::decode(&bytes, &mut |a| handle(a as i64))?;
                                    space.set_value(handle(atom)?, handle(key)?, v)?;
                                }
                            }
                        }
                    }
                    n += pending.add(space, &mut known, &mut self.ids)?;
                    Ok(())
                })();
                // A failure here hangs up the channel, which stops the reader.
                let read = reader.join().expect("the reader does not panic");
                added.and(read)
            })?;
            t.commit().map_err(|e| pg_err(&url, e))?;
            progress(n);
            Ok(n)
        })();
        // A load stopped mid-copy leaves the connection mid-stream: the next call makes a new one.
        if result.is_ok() {
            self.client = Some(client);
        }
        result
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.ids.use_space(space);
        if let Some(written) = self.store_whole(space, progress)? {
            return Ok(written);
        }
        let ops: Vec<Op> = space.one_copy_each().into_kept().into_iter().map(Op::Atom).collect();
        // The rows written include a kept link's members as the link holds
        // them (another base's copies, stored as the kept ones): progress
        // counts to the atoms kept, not past them.
        let total = ops.len() as u64;
        self.write(space, &ops, &mut |n| progress(n.min(total)))?;
        progress(total);
        Ok(total)
    }

    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        // Links in the space hold it: refused before the store is touched.
        if !recursive && space.incoming_size(h).unwrap_or(0) > 0 {
            return Ok(false);
        }
        let found = self.lookup_one(space, h)?;
        if let Some(id) = found {
            let url = self.url.clone();
            let mut t = self.client()?.transaction().map_err(|e| pg_err(&url, e))?;
            // The atom and, with `recursive`, everything above it.
            let mut doomed = vec![id];
            let mut work = vec![id];
            while !work.is_empty() {
                let holders: Vec<i64> = t
                    .query(concat!("SELECT uuid FROM atoms WHERE ", holding!(), " FOR UPDATE"), &[&work])
                    .map_err(|e| pg_err(&url, e))?
                    .iter()
                    .map(|r| r.get(0))
                    .filter(|u| !doomed.contains(u))
                    .collect();
                if !holders.is_empty() && !recursive {
                    return Ok(false);
                }
                doomed.extend(&holders);
                work = holders;
            }
            t.execute("DELETE FROM atom_values WHERE atom = ANY($1) OR key = ANY($1)", &[&doomed]).map_err(|e| pg_err(&url, e))?;
            // Values holding a deleted atom could not be loaded again. A scan
            // of every value; values other than truth values are few next to
            // atoms, and deletes are rare.
            let gone: HashSet<i64> = doomed.iter().copied().collect();
            let mut holding: (Vec<i64>, Vec<i64>) = (Vec::new(), Vec::new());
            for r in t.query("SELECT atom, key, value FROM atom_values", &[]).map_err(|e| pg_err(&url, e))? {
                let mut holds = false;
                codec::decode(r.get::<_, &[u8]>(2), &mut |a| {
                    holds |= gone.contains(&(a as i64));
                    Ok(Handle::from_u32(u32::MAX))
                })?;
                if holds {
                    holding.0.push(r.get(0));
                    holding.1.push(r.get(1));
                }
            }
            if !holding.0.is_empty() {
                t.execute(
                    "DELETE FROM atom_values v USING unnest($1::bigint[], $2::bigint[]) AS g(atom, key) WHERE v.atom = g.atom AND v.key = g.key",
                    &[&holding.0, &holding.1],
                )
                .map_err(|e| pg_err(&url, e))?;
            }
            t.execute("DELETE FROM atoms WHERE uuid = ANY($1)", &[&doomed]).map_err(|e| pg_err(&url, e))?;
            t.commit().map_err(|e| pg_err(&url, e))?;
            self.ids.clear();
        }
        match space.extract(h, recursive) {
            Ok(()) => Ok(true),
            Err(atomweave::Error::HasIncoming { .. }) => Ok(false),
            Err(atomweave::Error::InvalidHandle(_)) => Ok(found.is_some()),
            Err(e) => Err(e.into()),
        }
    }

    fn barrier(&mut self) -> Result<()> {
        // Each batch commits durably (synchronous_commit as the server has it).
        self.flush()
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.flush()
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

#[cfg(all(test, feature = "scratch-server"))]
mod tests {
    use super::*;

    /// A batch rolled back for a conflict is tried again, up to
    /// `CONFLICT_TRIES` times; other errors end it at once.
    #[test]
    fn conflicts_are_tried_again_and_other_errors_are_not() {
        let mut calls = 0;
        let got = retry_conflicts(|| {
            calls += 1;
            if calls < 3 {
                Err(StoreError::Conflict("deadlock detected".into()))
            } else {
                Ok(calls)
            }
        });
        assert_eq!(got.unwrap(), 3);
        calls = 0;
        let err = retry_conflicts(|| -> Result<()> {
            calls += 1;
            Err(StoreError::Conflict("deadlock detected".into()))
        })
        .unwrap_err();
        assert_eq!(calls, CONFLICT_TRIES);
        assert!(matches!(&err, StoreError::Conflict(m) if m.contains("tried 6 times")), "{err}");
        calls = 0;
        let err = retry_conflicts(|| -> Result<()> {
            calls += 1;
            Err(StoreError::Backend("gone".into()))
        })
        .unwrap_err();
        assert_eq!(calls, 1);
        assert!(matches!(err, StoreError::Backend(_)));
    }

    /// A deadlock between two transactions, as the server reports it to the
    /// one it rolls back, is a conflict (what `write` tries again).
    #[test]
    fn a_deadlock_the_server_reports_is_a_conflict() {
        let s = scratch::ScratchServer::start(false).unwrap();
        let url = s.url();
        let mut a = Client::connect(&url, NoTls).unwrap();
        let mut b = Client::connect(&url, NoTls).unwrap();
        a.batch_execute("CREATE TABLE t (id int PRIMARY KEY, x int); INSERT INTO t VALUES (1, 0), (2, 0)").unwrap();
        let mut ta = a.transaction().unwrap();
        let mut tb = b.transaction().unwrap();
        ta.execute("UPDATE t SET x = 1 WHERE id = 1", &[]).unwrap();
        tb.execute("UPDATE t SET x = 2 WHERE id = 2", &[]).unwrap();
        // Each now waits for the row the other holds: the server rolls one back.
        let (ra, rb) = std::thread::scope(|sc| {
            let first = sc.spawn(move || ta.execute("UPDATE t SET x = 1 WHERE id = 2", &[]).map(drop));
            std::thread::sleep(Duration::from_millis(100));
            let second = tb.execute("UPDATE t SET x = 2 WHERE id = 1", &[]).map(drop);
            (first.join().unwrap(), second)
        });
        let lost = ra.err().or(rb.err()).expect("one of the two is rolled back");
        assert!(matches!(pg_err(&url, lost), StoreError::Conflict(m) if m.contains("deadlock")));
    }

    /// Each part of `holding!` is answered by its index: were one not (a
    /// condition that no longer implies its index's predicate), finding
    /// incoming sets would read the whole table.
    #[test]
    fn holders_are_found_through_the_member_indexes() {
        let s = scratch::ScratchServer::start(false).unwrap();
        PgStore::open(&s.url(), true).unwrap();
        let mut c = Client::connect(&s.url(), NoTls).unwrap();
        // Links of two members, and some of three, as a planner sees them.
        c.batch_execute(
            "INSERT INTO atoms (uuid, type, height, outgoing, digest) \
             SELECT g, 1, 1, CASE WHEN g % 10 = 0 THEN ARRAY[g + 1, g + 2, g + 3] ELSE ARRAY[g + 1, g + 2] END, \
                    substring(sha256(int8send(g)) for 16) FROM generate_series(1, 50000) g; \
             ANALYZE atoms",
        )
        .unwrap();
        c.batch_execute(concat!("PREPARE holders(bigint[]) AS SELECT uuid FROM atoms WHERE ", holding!())).unwrap();
        let plan: String = c.query("EXPLAIN EXECUTE holders('{1, 2}')", &[]).unwrap().iter().map(|r| r.get::<_, String>(0) + "\n").collect();
        assert!(!plan.contains("Seq Scan"), "{plan}");
        for index in ["atoms_member1", "atoms_member2", "atoms_members"] {
            assert!(plan.contains(index), "{index} unused:\n{plan}");
        }
    }
}
