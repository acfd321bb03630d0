//! The PostgreSQL store: a database server that many processes share.
//!
//! This module is the store's face: [`PgStore`], its connection, and the
//! [`StorageNode`] calls, each a few lines that hand the work to the files
//! below. It is not where the schema is made, nor where atoms are written,
//! read, loaded, stored whole or deleted:
//! - `schema.rs`: the tables, their indexes, and an atom as a row;
//! - `ids.rs`: the store's type codes and the uuids it hands out;
//! - `write.rs`: a batch of writes, one transaction, tried again on a conflict;
//! - `read.rs`: atoms found by content, and stored atoms brought into a space;
//! - `load_whole.rs`: every stored atom loaded, height by height, in bulk;
//! - `store_whole.rs`: a whole space copied into an empty store;
//! - `delete.rs`: atoms taken out with the values that name them;
//! - `check.rs`: every reference checked against the rows;
//! - `errors.rs`: the driver's errors, said clearly, and which are conflicts;
//! - `scratch_server.rs` (the `scratch-server` feature): throwaway servers
//!   for tests and benchmarks.
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
//!   [`codec`](crate::codec) form): every value but the truth value.
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
//! straight into `atoms` under a table lock (`store_whole.rs`; unless the
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

mod check;
mod delete;
mod errors;
mod ids;
mod load_whole;
mod read;
mod schema;
#[cfg(feature = "scratch-server")]
pub mod scratch_server;
mod store_whole;
mod write;

use std::time::Duration;

use atomweave::AtomSource;
use atomweave::{AtomSpace, Handle, Type, Value};
use postgres::{Client, NoTls};

use crate::type_codes::TypeCodes;
use crate::{Batching, HashMap, Op, Result, StorageNode, StoreError};
use errors::{connect_err, pg_err};
use schema::{tv_of, UuidCache, STAGING};

/// The schema version this code reads and writes.
pub const SCHEMA: u32 = 2;
/// Uuids a process takes from the shared sequence at a time.
pub const ID_BLOCK: i64 = 4096;
/// Rows between progress reports.
const REPORT: u64 = 1 << 16;

pub struct PgStore {
    url: String,
    config: postgres::Config,
    client: Option<Client>,
    /// The store's type table, as last read.
    types: TypeCodes<i16>,
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
            types: TypeCodes::default(),
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
        if space.is_tv_key(key) {
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
        self.load_whole(space, progress)
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

    fn barrier(&mut self) -> Result<()> {
        // Each batch commits durably (synchronous_commit as the server has it).
        self.flush()
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.flush()
    }
}
