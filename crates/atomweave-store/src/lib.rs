//! atomweave-store: the StorageNode API and its backends.
//!
//! A store is named by a URL and opened with [`open`]:
//! - `lmdb:///path/dir` (or a plain path): the embedded default, an LMDB
//!   environment in a directory, with a compact binary layout ([`lmdb`]);
//! - `rocks:///path/dir`: a store of upstream's atomspace-rocks, in its own
//!   RocksDB layout, read and written (`rocks`, with the `rocks` feature);
//!   a directory that holds atomweave's LMDB files (made when `rocks://`
//!   named the LMDB store) opens as LMDB, with a warning;
//! - `file:///path/file.scm`: Atomese text, for exchange and inspection
//!   ([`file`](mod@file));
//! - `postgres://user@host:port/db`: a PostgreSQL database that many
//!   processes share ([`pg`]);
//! - `cog://host:port`: the space of a running CogServer (`atomweave
//!   serve`, or upstream's), over the network ([`cog`]);
//! - `redis://host:port` and `redis+cluster://host:port,...`: a Redis
//!   server or a Redis Cluster that many hosts share (`redis`, with the
//!   `redis` feature);
//! - a proxy atom (`WriteThruProxy`, `ReadThruProxy`, `CachingProxy`,
//!   ...) passing calls to the stores its ProxyParametersLink names
//!   ([`proxy`], opened from the atom by [`proxy::open_node`]; the
//!   `WriteBufferProxy` in [`buffer`]).
//!
//! Every backend offers the calls upstream's StorageNode does
//! ([`StorageNode`]); stores write behind, in batches, and [`barrier`]
//! makes everything stored so far durable. This crate knows the core, not
//! the server or the language front ends.
//!
//! [`barrier`]: StorageNode::barrier

use atomweave::AtomSource;
use atomweave::{AtomSpace, Handle, TruthValue, Type, Value};

pub(crate) type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;
pub(crate) type HashSet<K> = hashbrown::HashSet<K, foldhash::fast::RandomState>;

/// The StorageNode calls besides the plain writes (`store_atom`,
/// `store_value`) and `fetch_query`, each passed to the store that
/// `self.$via(|store| ...)` reaches: for wrappers of another store.
macro_rules! forward_calls {
    ($via:ident) => {
        fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
            self.$via(|s| s.update_value(space, h, key, delta))
        }
        fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
            self.$via(|s| s.fetch_atom(space, h))
        }
        fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
            self.$via(|s| s.fetch_value(space, h, key))
        }
        fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
            self.$via(|s| s.fetch_incoming_set(space, h, recursive))
        }
        fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
            self.$via(|s| s.fetch_incoming_by_type(space, h, t))
        }
        fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
            self.$via(|s| s.load_atoms_of_type(space, t))
        }
        fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
            self.$via(|s| s.load_atomspace(space, progress))
        }
        fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
            self.$via(|s| s.store_atomspace(space, progress))
        }
        fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
            self.$via(|s| s.delete(space, h, recursive))
        }
        fn barrier(&mut self) -> Result<()> {
            self.$via(|s| s.barrier())
        }
        fn incoming_count(&mut self, space: &AtomSpace, h: Handle, limit: usize) -> Result<Option<usize>> {
            self.$via(|s| s.incoming_count(space, h, limit))
        }
        fn fetch_node(&mut self, space: &AtomSpace, t: Type, name: &str) -> Result<Option<Handle>> {
            self.$via(|s| s.fetch_node(space, t, name))
        }
        fn fetch_link(&mut self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> Result<Option<Handle>> {
            self.$via(|s| s.fetch_link(space, t, outgoing))
        }
    };
}

/// The StorageNode calls the database stores (LMDB, PostgreSQL) make the
/// same way: their `url` field, writes queued for the next flush
/// ([`Batching`]), incoming sets through their own `fetch_incoming(space,
/// h, type, recursive)`, deletes through their `delete_from_store`
/// ([`delete_in_both`]).
macro_rules! database_calls {
    () => {
        fn url(&self) -> &str {
            &self.url
        }
        fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
            self.queue_store(space, h, crate::Op::Atom(h))
        }
        fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
            self.queue_store(space, h, crate::Op::Value(h, key))
        }
        fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
            self.queue_update(space, h, key, delta)
        }
        fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
            self.fetch_incoming(space, h, None, recursive)
        }
        fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
            self.fetch_incoming(space, h, Some(t), false)
        }
        fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
            self.flush()?;
            self.ids.use_space(space);
            crate::delete_in_both(space, h, recursive, || self.delete_from_store(space, h, recursive))
        }
    };
}

pub mod buffer;
pub mod codec;
pub mod cog;
pub mod file;
mod handle_map;
pub mod lmdb;
pub mod pg;
pub mod proxy;
pub mod read_through;
#[cfg(feature = "redis")]
pub mod redis;
pub mod registry;
#[cfg(feature = "rocks")]
pub mod rocks;
mod spill;
mod type_codes;
mod wire;

pub(crate) use handle_map::{HandleMap, IdCache, SpaceIds};

/// What can go wrong with a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{url}: {msg}")]
    Open { url: String, msg: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("store: {0}")]
    Backend(String),
    /// Another writer's transaction conflicted with this one's, which was
    /// rolled back (a deadlock between two writers of the same atoms), as
    /// often as the store retries: nothing of the batch was stored.
    #[error("store: {0}")]
    Conflict(String),
    #[error("the store's data is damaged: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Space(#[from] atomweave::Error),
    #[error("{path}: {err}")]
    Io { path: String, err: std::io::Error },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl From<atomweave::sexpr::TooLarge> for StoreError {
    fn from(e: atomweave::sexpr::TooLarge) -> Self {
        StoreError::Space(e.into())
    }
}

/// Upstream's StorageNode calls. Atoms move between a space and the store
/// by content; handles are the space's, never stored.
pub trait StorageNode: Send {
    /// The URL the store was opened with.
    fn url(&self) -> &str;

    /// Stores the atom (its members first) with its truth value and values.
    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()>;

    /// Stores one value of the atom (the atom too, if it is not stored yet).
    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()>;

    /// Adds `delta` to the atom's FloatValue (or count truth value's count,
    /// under the truth-value key) in the store and in the space, atomically
    /// in the store; returns the new value.
    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<atomweave::Value>;

    /// Loads the stored values of an atom of the space; false if the store
    /// does not hold it.
    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool>;

    /// Loads one stored value of the atom.
    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool>;

    /// Loads the stored links that hold the atom (and, with `recursive`,
    /// the links holding those, and so on); returns how many.
    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize>;

    /// Loads the stored links of type `t` that hold the atom.
    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize>;

    /// Loads every stored atom of type `t`.
    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize>;

    /// Loads every stored atom and value; `progress` hears the count.
    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64>;

    /// Stores every atom and value of the space; `progress` hears the count.
    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64>;

    /// Deletes the atom from the store and the space; with `recursive`, the
    /// links holding it too. False if links hold it and `recursive` is not set.
    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool>;

    /// Makes everything stored so far durable.
    fn barrier(&mut self) -> Result<()>;

    /// Runs `query` where the atoms are and sets its result on the query
    /// here, under `key` (upstream's fetch-query). A store that runs
    /// queries itself (`cog://`, a server) does; a store a space reads
    /// through is queried that way instead ([`read_through::fetch_query`]);
    /// the others refuse.
    fn fetch_query(&mut self, space: &AtomSpace, query: Handle, key: Handle, fresh: bool) -> Result<atomweave::Value> {
        let _ = (space, query, key, fresh);
        Err(StoreError::Unsupported(format!(
            "{} cannot run queries: fetch-query needs a cog:// or lmdb:// store; load the atoms (load-atomspace, fetch-incoming-set) and use cog-execute!",
            self.url()
        )))
    }

    /// Can a space read through this store ([`read_through`])? It must
    /// answer the three calls below.
    fn reads_through(&self) -> bool {
        false
    }

    /// How many stored links hold the atom, counting no further than
    /// `limit`; `None` where the store cannot tell without loading them.
    fn incoming_count(&mut self, space: &AtomSpace, h: Handle, limit: usize) -> Result<Option<usize>> {
        let _ = (space, h, limit);
        Ok(None)
    }

    /// Loads the stored node of this type and name, if any.
    fn fetch_node(&mut self, space: &AtomSpace, t: Type, name: &str) -> Result<Option<Handle>> {
        let _ = (space, t, name);
        Err(StoreError::Unsupported(format!("{} cannot find atoms by content alone", self.url())))
    }

    /// Loads the stored link of this type over these atoms, if any.
    fn fetch_link(&mut self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> Result<Option<Handle>> {
        let _ = (space, t, outgoing);
        Err(StoreError::Unsupported(format!("{} cannot find atoms by content alone", self.url())))
    }

    /// A report on the store for people (upstream's `monitor-storage`):
    /// what it is and, where it keeps them, its counts.
    fn monitor(&self) -> String {
        format!("{}: open\n", self.url())
    }

    /// Flushes and closes the store.
    fn close(self: Box<Self>) -> Result<()>;
}

/// The URL a StorageNode atom names: `(LmdbStorageNode "lmdb:///dir")`,
/// `(RocksStorageNode "rocks:///dir")` (upstream's RocksDB store),
/// `(FileStorageNode "/f.scm")`, `(PostgresStorageNode "postgres://...")`,
/// `(CogStorageNode "cog://host:port")`, `(RedisStorageNode "redis://host:port")`.
pub fn url_of_node(t: Type, name: &str) -> Result<String> {
    let bad = |want: &str| StoreError::Open { url: name.to_string(), msg: format!("a {} names {want}", t.name()) };
    Ok(match t.name() {
        "LmdbStorageNode" => name.starts_with("lmdb://").then(|| name.to_string()).ok_or_else(|| bad("lmdb:///dir"))?,
        "RocksStorageNode" => name.starts_with("rocks://").then(|| name.to_string()).ok_or_else(|| bad("rocks:///dir"))?,
        "FileStorageNode" => {
            if name.starts_with("file://") {
                name.to_string()
            } else {
                format!("file://{name}")
            }
        }
        "PostgresStorageNode" => name.to_string(),
        "CogStorageNode" => name.to_string(),
        "RedisStorageNode" => (name.starts_with("redis://") || name.starts_with("redis+cluster://"))
            .then(|| name.to_string())
            .ok_or_else(|| bad("redis://host:port or redis+cluster://host:port,..."))?,
        _ => return Err(StoreError::Unsupported(format!("{} is not a StorageNode type", t.name()))),
    })
}

/// Opens a store that must exist already: for reading from (a copy's
/// source, a dump), where a mistyped URL must not make an empty store.
pub fn open_existing(url: &str) -> Result<Box<dyn StorageNode>> {
    if let Some(path) = url.strip_prefix("rocks://") {
        return open_rocks(url, path, false);
    }
    let path = url.strip_prefix("lmdb://").or_else(|| url.strip_prefix("file://")).unwrap_or(url);
    let there = if url.starts_with("file://") {
        std::path::Path::new(file::split_options(path).0).is_file()
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Box::new(pg::PgStore::open(url, false)?));
    } else if url.contains("://") && !url.starts_with("lmdb://") {
        true
    } else {
        std::path::Path::new(path).join("data.mdb").is_file()
    };
    if !there {
        return Err(StoreError::Open { url: url.to_string(), msg: "no store there".into() });
    }
    open(url)
}

/// Opens the store a URL names (creating an empty one where that makes sense).
pub fn open(url: &str) -> Result<Box<dyn StorageNode>> {
    let open_err = |msg: &str| StoreError::Open { url: url.to_string(), msg: msg.to_string() };
    if let Some(path) = url.strip_prefix("lmdb://") {
        return Ok(Box::new(lmdb::LmdbStore::open(url, path)?));
    }
    if let Some(path) = url.strip_prefix("file://") {
        return Ok(Box::new(file::FileStore::open(url, path)?));
    }
    if let Some(path) = url.strip_prefix("rocks://") {
        return open_rocks(url, path, true);
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Box::new(pg::PgStore::open(url, true)?));
    }
    if url.starts_with("cog://") {
        return Ok(Box::new(cog::CogStore::open(url)?));
    }
    if url.starts_with("redis://") || url.starts_with("redis+cluster://") {
        #[cfg(feature = "redis")]
        return Ok(Box::new(redis::RedisStore::open(url)?));
        #[cfg(not(feature = "redis"))]
        return Err(StoreError::Unsupported(format!("{url}: this atomweave was built without Redis (atomweave-store's `redis` feature)")));
    }
    if url.contains("://") {
        return Err(open_err("unknown kind of store: use lmdb:///dir, rocks:///dir, file:///file.scm, postgres://..., cog://host:port, redis://host:port or redis+cluster://host:port,..."));
    }
    Ok(Box::new(lmdb::LmdbStore::open(url, url)?))
}

/// `rocks:///dir`: upstream's RocksDB store, or, where the directory holds
/// atomweave's LMDB files (`rocks://` named the LMDB store before
/// atomweave read upstream's), that LMDB store, with a warning once per
/// directory saying to name it `lmdb://`.
fn open_rocks(url: &str, path: &str, create: bool) -> Result<Box<dyn StorageNode>> {
    if std::path::Path::new(path).join("data.mdb").is_file() {
        static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
        if !warned.iter().any(|p| p == path) {
            warned.push(path.to_string());
            eprintln!("atomweave: warning: {url} holds atomweave's own LMDB store, not an upstream RocksDB one: opened as LMDB; name it lmdb://{path} (rocks:// now opens upstream's atomspace-rocks stores)");
        }
        return Ok(Box::new(lmdb::LmdbStore::open(url, path)?));
    }
    #[cfg(feature = "rocks")]
    return Ok(Box::new(rocks::RocksStore::open(url, path, create)?));
    #[cfg(not(feature = "rocks"))]
    {
        let _ = create;
        Err(StoreError::Unsupported(format!("{url}: this atomweave was built without RocksDB (atomweave-store's `rocks` feature)")))
    }
}

/// A pending write of a batching store.
pub(crate) enum Op {
    Atom(Handle),
    Value(Handle, Handle),
    Update(Handle, Handle, Vec<f64>),
}

/// Pending writes applied per transaction.
pub(crate) const BATCH: usize = 1 << 16;

/// A store that writes behind: store calls queue writes, applied in one
/// transaction when a batch fills, when another space's writes arrive,
/// and before any read. A batch whose transaction fails stays queued, for
/// the next flush to write again: each call that flushes reports the
/// failure until one succeeds, and none reports a write lost.
pub(crate) trait Batching {
    /// The queued writes and the space they belong to.
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>);

    /// Writes `ops` in one transaction: all of them, or on an error none.
    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()>;

    /// Applies the queued writes. A batch whose transaction fails stays
    /// queued, but for writes that no flush could apply (a value changed
    /// since it was queued into one the store cannot hold): those are
    /// dropped, reported with the error, and the rest written.
    fn flush(&mut self) -> Result<()> {
        let (ops, owner) = self.pending();
        if ops.is_empty() {
            return Ok(());
        }
        let ops = std::mem::take(ops);
        let space = owner.clone().expect("pending writes have their space");
        let err = match self.write_batch(&space, &ops) {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        let (storable, refused): (Vec<Op>, Vec<Op>) = ops.into_iter().partition(|op| self.check_storable(&space, op).is_ok());
        if refused.is_empty() {
            *self.pending().0 = storable;
            return Err(err);
        }
        let written = self.write_batch(&space, &storable);
        if written.is_err() {
            *self.pending().0 = storable;
        }
        let why: Vec<String> = refused.iter().filter_map(|op| self.check_storable(&space, op).err()).map(|e| e.to_string()).collect();
        let dropped = StoreError::Unsupported(format!("{} write(s) dropped, which no store could apply: {}", refused.len(), why.join("; ")));
        written.and(Err(dropped))
    }

    /// Refuses, before it is queued, a write that no flush could apply:
    /// else it would fail its batch at every flush. By default, a value
    /// the store's encoding refuses (a stream, one nested too deep).
    fn check_storable(&self, space: &AtomSpace, op: &Op) -> Result<()> {
        op_values(space, op).into_iter().try_for_each(|(_, v)| codec::check(&v))
    }

    /// Queues `op`; an error means it was not queued. A full batch is
    /// applied first, so a batch that keeps failing holds no more.
    fn queue(&mut self, space: &AtomSpace, op: Op) -> Result<()> {
        let (ops, owner) = self.pending();
        if ops.len() >= BATCH || owner.as_ref().is_some_and(|s| s != space) {
            self.flush()?;
        }
        let (ops, owner) = self.pending();
        *owner = Some(space.clone());
        ops.push(op);
        Ok(())
    }

    /// `store_atom` and `store_value`: the atom must be in the space.
    fn queue_store(&mut self, space: &AtomSpace, h: Handle, op: Op) -> Result<()> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        self.check_storable(space, &op)?;
        self.queue(space, op)
    }

    /// `update_value`: the space changes now, the store at the flush.
    fn queue_update(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
        let op = Op::Update(h, key, delta.to_vec());
        self.check_storable(space, &op)?;
        let new = update_in_space(space, h, key, delta)?;
        self.queue(space, op)?;
        Ok(new)
    }
}

/// The three writes a database store's transaction makes of a batch's
/// [`Op`]s, called by [`apply_ops`].
pub(crate) trait OpWriter {
    /// Stores the atom with its truth value and values.
    fn atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()>;
    /// Stores the value the space holds under `key` (none: removes it).
    fn value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()>;
    /// Adds `delta` to the stored value.
    fn update(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()>;
}

/// Applies a batch's writes in order, in one transaction of `w`'s. Atoms
/// (and keys) removed from the space since are not stored; stores of atoms
/// or values write what the space holds now, which already counts every
/// update of this batch: those updates are not added again.
pub(crate) fn apply_ops(w: &mut impl OpWriter, space: &AtomSpace, ops: &[Op]) -> Result<()> {
    let snapshot: HashSet<(Handle, Option<Handle>)> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Atom(h) => Some((*h, None)),
            Op::Value(h, k) => Some((*h, Some(*k))),
            Op::Update(..) => None,
        })
        .collect();
    for op in ops {
        match op {
            Op::Atom(h) if space.contains(*h) => w.atom(space, *h)?,
            Op::Value(h, k) if space.contains(*h) && space.contains(*k) && space.get_value(*h, *k).is_none_or(|v| holds_only_live(space, &v)) => {
                w.value(space, *h, *k)?
            }
            Op::Update(h, k, _) if snapshot.contains(&(*h, None)) || snapshot.contains(&(*h, Some(*k))) => {}
            Op::Update(h, k, delta) if space.contains(*h) && space.contains(*k) => w.update(space, *h, *k, delta)?,
            _ => {}
        }
    }
    Ok(())
}

/// A database store's `delete`: refused (false, nothing touched) while
/// links in the space hold the atom and `recursive` is not set; else
/// `from_store` deletes it from the store, saying whether the store held
/// it (`None`: links there hold it and `recursive` is not set, so nothing
/// was deleted), and then it goes from the space (with `recursive`, the
/// links holding it too). Whether it was deleted: taken from the space,
/// or, gone from it already, found in the store.
pub(crate) fn delete_in_both(space: &AtomSpace, h: Handle, recursive: bool, from_store: impl FnOnce() -> Result<Option<bool>>) -> Result<bool> {
    if !recursive && space.incoming_size(h).unwrap_or(0) > 0 {
        return Ok(false);
    }
    let Some(found) = from_store()? else { return Ok(false) };
    match space.extract(h, recursive) {
        Ok(()) => Ok(true),
        Err(atomweave::Error::HasIncoming { .. }) => Ok(false),
        Err(atomweave::Error::InvalidHandle(_)) => Ok(found),
        Err(e) => Err(e.into()),
    }
}

/// The values of `h` a store can name: those whose key, and every atom the
/// value holds, are still in the space (a value outlives an extracted key
/// in the space, but a store could only write a dangling reference).
pub(crate) fn live_values(space: &AtomSpace, h: Handle) -> Vec<(Handle, Value)> {
    space.key_values(h).into_iter().filter(|(k, v)| space.contains(*k) && holds_only_live(space, v)).collect()
}

/// The keys and values a store of `op` writes, as the space holds them now.
pub(crate) fn op_values(space: &AtomSpace, op: &Op) -> Vec<(Handle, Value)> {
    match *op {
        Op::Atom(h) => live_values(space, h),
        Op::Value(h, k) => space.get_value(h, k).map(|v| (k, v)).into_iter().collect(),
        Op::Update(..) => Vec::new(),
    }
}

/// Whether every atom the value holds is in the space.
pub(crate) fn holds_only_live(space: &AtomSpace, v: &Value) -> bool {
    v.atoms().into_iter().all(|a| space.contains(a))
}

/// `update_value`'s change to the space, now: the atom's value plus
/// `delta`, set and returned (the store adds to its own copy at its flush).
/// The read and the write are two steps: callers that update from several
/// threads serialize them.
pub fn update_in_space(space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
    space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
    let current = space.get_value(h, key).filter(|v| *v != Value::Truth(TruthValue::DEFAULT));
    let new = add(current, space.is_tv_key(key), delta);
    space.set_value(h, key, new.clone())?;
    Ok(new)
}

/// `stored + delta`: a count truth value's count, or a FloatValue elementwise.
pub(crate) fn add(stored: Option<Value>, tv_key: bool, delta: &[f64]) -> Value {
    let d0 = delta.first().copied().unwrap_or(0.0);
    if tv_key {
        return Value::Truth(match stored {
            Some(Value::Truth(TruthValue::Count { mean, confidence, count })) => TruthValue::count(mean, confidence, count + d0),
            _ => TruthValue::count(1.0, 0.0, d0),
        });
    }
    let mut v: Vec<f64> = match stored {
        Some(Value::Float(xs)) => xs.to_vec(),
        _ => Vec::new(),
    };
    if v.len() < delta.len() {
        v.resize(delta.len(), 0.0);
    }
    v.iter_mut().zip(delta).for_each(|(x, d)| *x += d);
    Value::float(v)
}
