//! The embedded LMDB store: a directory, zero set-up, readers never block
//! the writer.
//!
//! This module is the store's face: [`LmdbStore`], opening a store
//! directory, and the [`StorageNode`] calls, each a few lines that hand
//! the work to the files below. It is not where bytes are laid out, nor
//! where atoms are written, read, loaded or stored whole, nor how
//! processes share the directory: those are
//! - `layout.rs`: the tables' keys and records;
//! - `meta.rs`: the store's type table and next id, reread at every transaction;
//! - `write.rs`: atoms and values written by content, a batch a transaction;
//! - `read.rs`: atoms found by content and brought into a space;
//! - `load_whole.rs`: every stored atom loaded, a chunk at a time, in bulk;
//! - `store_whole.rs`: a whole space into an empty store, every table appended;
//! - `delete.rs`: atoms taken out with their index entries and values;
//! - `check.rs`: every index checked against the records;
//! - `process_lock.rs`: the lock file that keeps other processes out of a
//!   whole-space store.
//!
//! Layout (all keys big-endian where order matters, so prefix scans work):
//! - `atoms`: id (u64) -> type code (u16), flags (link; simple or count
//!   truth value), the truth value if any (two or three f64: most atoms that
//!   have values have just this one, and it costs no entry of its own), then
//!   the name's bytes or the members' ids (LEB128 varints). Ids count up
//!   from 1 and a link is always stored after its members, so id order
//!   loads in one pass: a chunk of records at a time, added in bulk (its
//!   nodes in one `add_nodes`, its links a level at a time), or in id
//!   order where a StateLink or GrantLink is among them.
//! - `nodes`: type code + name -> id; names too long for an LMDB key are
//!   keyed by type code, 0xFF (never a UTF-8 byte) and a 128-bit XXH3 hash,
//!   the value listing every id with that hash.
//! - `links`: the 64-bit XXH3 hash of type code and member ids -> ids
//!   (sorted duplicates of fixed size: 8 bytes an entry, and a hash shared
//!   by two contents lists both, told apart by their records). Unordered
//!   links hash their members sorted by id.
//! - `incoming`: member id -> link type code + link id (sorted duplicates
//!   of 10 bytes): a member's incoming set, or its incoming set of one
//!   type, is one run of duplicates.
//! - `values`: atom id, key id -> the value ([`codec`](crate::codec)), for
//!   values other than the truth value.
//! - `meta`: the schema version, the next id, and the store's type table
//!   (code -> type name): a store survives changes to the type table.
//!
//! Writes go to a pending batch applied in one write transaction when it
//! fills, before any read, and at [`barrier`](crate::StorageNode::barrier):
//! a crash loses the batch in flight, never a part of an atom. A whole
//! space stored into an empty store takes a faster path (`store_whole`), unless
//! the space may see one content twice (not
//! [`is_chain`](AtomSpace::is_chain): it is stored by content, one copy of
//! each, `AtomSpace::one_copy_each`). The faster path appends every table in key
//! order; until the last is written, a marker says the store is
//! incomplete, and opening it empties it again. That store
//! holds the store's lock exclusively throughout, and every other
//! transaction holds it shared (`process_lock`), so other processes wait for it
//! rather than write between its steps.

use atomweave::AtomSource;
use atomweave::{AtomSpace, Handle, Type, Value};

use heed::types::Bytes;
use heed::{Database, Env, EnvOpenOptions, RoTxn};

mod check;
mod delete;
mod layout;
mod load_whole;
mod meta;
mod process_lock;
mod read;
mod store_whole;
mod write;

use crate::type_codes::TypeCodes;
use crate::{Batching, HashMap, IdCache, Op, Result, StorageNode, StoreError};
use layout::value_key;

/// The layout version this code reads and writes.
pub const SCHEMA: u32 = 3;
/// Address space reserved for the map; the file grows only as data does.
const MAP_SIZE: usize = 1 << 40;

fn backend(e: heed::Error) -> StoreError {
    match e {
        heed::Error::Mdb(heed::MdbError::MapFull) => StoreError::Backend("the store is full (its 1 TiB map): copy it into a new one".into()),
        heed::Error::Io(io) if io.raw_os_error() == Some(28) => StoreError::Backend("the disk is full: nothing of the last batch was stored".into()),
        // How some filesystems (tmpfs among them) report a full disk to LMDB's writes.
        heed::Error::Io(io) if io.raw_os_error() == Some(5) => {
            StoreError::Backend("the disk is full or failing (I/O error): nothing of the last batch was stored".into())
        }
        e => StoreError::Backend(format!("lmdb: {e}")),
    }
}

struct Dbs {
    meta: Database<Bytes, Bytes>,
    atoms: Database<Bytes, Bytes>,
    nodes: Database<Bytes, Bytes>,
    links: Database<Bytes, Bytes>,
    incoming: Database<Bytes, Bytes>,
    values: Database<Bytes, Bytes>,
}

pub struct LmdbStore {
    url: String,
    env: Env,
    lock: std::sync::Arc<process_lock::StoreLock>,
    db: Dbs,
    /// The store's type table: names by code, resolved where known here.
    types: TypeCodes<u16>,
    next_id: u64,
    pending: Vec<Op>,
    pending_space: Option<AtomSpace>,
    /// Store ids of atoms of one space, as found or made.
    ids: IdCache,
    /// The node whose storing fails: see [`LmdbStore::fail_when_storing`].
    fail_on: Option<(atomweave::Type, String)>,
    /// Ids from here on were made by the current write: they have no old values.
    made_from: u64,
}

impl LmdbStore {
    /// For tests of failure handling: from now on, storing the node `(t,
    /// name)` fails after the node got its store id, every time, as a
    /// failing disk would make it fail (the space itself can hold nothing
    /// this store refuses).
    #[doc(hidden)]
    pub fn fail_when_storing(&mut self, t: atomweave::Type, name: &str) {
        self.fail_on = Some((t, name.to_string()));
    }

    /// The failure [`fail_when_storing`](Self::fail_when_storing) asked for, if this is its node.
    fn check_failure(&self, t: Type, name: &str) -> Result<()> {
        match &self.fail_on {
            Some((ft, fname)) if *ft == t && fname == name => Err(StoreError::Backend(format!("a failure injected storing ({} {name:?})", t.name()))),
            _ => Ok(()),
        }
    }

    /// Opens (creating if needed) the store in directory `path`.
    pub fn open(url: &str, path: &str) -> Result<LmdbStore> {
        let open_err = |msg: String| StoreError::Open { url: url.to_string(), msg };
        if path.is_empty() {
            return Err(open_err("no directory given: use lmdb:///path/to/dir".into()));
        }
        std::fs::create_dir_all(path).map_err(|e| open_err(format!("cannot create the directory: {e}")))?;
        let lock = process_lock::StoreLock::open(std::path::Path::new(path)).map_err(|e| open_err(format!("cannot open its lock file: {e}")))?;
        // Waits for a whole-space store another process is making.
        let held = lock.shared().map_err(|e| open_err(format!("cannot lock: {e}")))?;
        // SAFETY: the environment is opened once per LmdbStore, and the
        // files are not modified outside LMDB while it is open.
        let env = unsafe { EnvOpenOptions::new().map_size(MAP_SIZE).max_dbs(8).open(path) }.map_err(|e| match e {
            heed::Error::EnvAlreadyOpened => open_err("already open in this process: close the StorageNode that has it open first".into()),
            e => open_err(format!("cannot open: {e}")),
        })?;
        let mut w = env.write_txn().map_err(|e| open_err(format!("cannot write: {e}")))?;
        let mut make = |name, dups: bool| {
            let mut o = env.database_options().types::<Bytes, Bytes>();
            o.name(name);
            if dups {
                o.flags(heed::DatabaseFlags::DUP_SORT | heed::DatabaseFlags::DUP_FIXED);
            }
            o.create(&mut w).map_err(|e| open_err(format!("cannot create its tables: {e}")))
        };
        let db = Dbs {
            meta: make("meta", false)?,
            atoms: make("atoms", false)?,
            nodes: make("nodes", false)?,
            links: make("links", true)?,
            incoming: make("incoming", true)?,
            values: make("values", false)?,
        };
        match db.meta.get(&w, b"schema").map_err(backend)? {
            None => {
                if !db.atoms.is_empty(&w).map_err(backend)? {
                    return Err(open_err("it holds atoms but no schema version: not an atomweave store".into()));
                }
                db.meta.put(&mut w, b"schema", &SCHEMA.to_le_bytes()).map_err(backend)?;
            }
            Some(v) => {
                let found = u32::from_le_bytes(v.try_into().map_err(|_| open_err("a damaged schema version".into()))?);
                if found != SCHEMA {
                    return Err(open_err(format!(
                        "the store has schema version {found}; this atomweave reads version {SCHEMA} (copy it with the atomweave that wrote it)"
                    )));
                }
            }
        }
        w.commit().map_err(|e| open_err(format!("cannot write: {e}")))?;
        let mut store = LmdbStore {
            url: url.to_string(),
            env,
            lock,
            db,
            types: TypeCodes::default(),
            next_id: 1,
            pending: Vec::new(),
            pending_space: None,
            ids: IdCache::new(0),
            fail_on: None,
            made_from: u64::MAX,
        };
        {
            let env = store.env.clone();
            let _lock = store.shared_lock()?;
            let r = env.read_txn().map_err(backend)?;
            store.refresh_meta(&r)?;
        }
        // A first whole-space store that did not finish left an incomplete
        // store (one still running would hold the lock exclusively).
        if store.indexing_unfinished()? {
            store.discard_unfinished()?;
        }
        drop(held);
        Ok(store)
    }

    /// Bytes the store's files take on disk.
    pub fn disk_bytes(&self) -> Result<u64> {
        self.env.real_disk_size().map_err(backend)
    }
}

impl StorageNode for LmdbStore {
    database_calls!();

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| {
            let Some(id) = s.lookup(r, space, h)? else { return Ok(false) };
            space.set_tv(h, s.stored_tv(r, id)?)?;
            let mut known = HashMap::default();
            known.insert(id, h);
            s.load_values(r, space, id, h, &mut known)?;
            Ok(true)
        })
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| {
            let Some(id) = s.lookup(r, space, h)? else { return Ok(false) };
            if space.is_tv_key(key) {
                space.set_tv(h, s.stored_tv(r, id)?)?;
                return Ok(true);
            }
            let Some(key_id) = s.lookup(r, space, key)? else { return Ok(false) };
            let Some(bytes) = s.db.values.get(r, &value_key(id, key_id)).map_err(backend)?.map(<[u8]>::to_vec) else { return Ok(false) };
            let mut known = HashMap::default();
            s.set_loaded(r, space, h, key_id, &bytes, &mut known)?;
            Ok(true)
        })
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(code) = self.types.code(t) else { return Ok(0) };
        self.reading(|s, r| {
            let ids: Vec<u64> =
                s.db.atoms
                    .iter(r)
                    .map_err(backend)?
                    .filter_map(|e| match e {
                        Ok((k, v)) if v.len() >= 3 && u16::from_le_bytes([v[0], v[1]]) == code => Some(Ok(u64::from_be_bytes(k.try_into().ok()?))),
                        Ok(_) => None,
                        Err(e) => Some(Err(backend(e))),
                    })
                    .collect::<Result<_>>()?;
            let mut known = HashMap::default();
            for &id in &ids {
                let h = s.materialize(r, space, id, &mut known)?;
                s.load_values(r, space, id, h, &mut known)?;
            }
            Ok(ids.len())
        })
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.ids.use_space(space);
        self.reading(|s, r| s.load_whole(r, space, progress))
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        // No other process writes (or reads) until the store is whole.
        let _alone = self.lock.exclusive().map_err(|e| StoreError::Backend(format!("{}: cannot lock the store: {e}", self.url)))?;
        self.ids.use_space(space);
        let empty = {
            let env = self.env.clone();
            let r = env.read_txn().map_err(backend)?;
            self.refresh_meta(&r)?;
            self.next_id == 1 && self.db.atoms.is_empty(&r).map_err(backend)?
        };
        // A content seen twice (`is_chain`) would be two records: the by-content path takes it.
        if empty && space.is_chain() {
            self.store_whole(space, progress)
        } else {
            self.store_chunks(space, progress)
        }
    }

    fn barrier(&mut self) -> Result<()> {
        self.flush()?;
        self.env.force_sync().map_err(backend)
    }

    fn reads_through(&self) -> bool {
        true
    }

    fn incoming_count(&mut self, space: &AtomSpace, h: Handle, limit: usize) -> Result<Option<usize>> {
        self.count_incoming(space, h, limit).map(Some)
    }

    fn fetch_node(&mut self, space: &AtomSpace, t: Type, name: &str) -> Result<Option<Handle>> {
        self.fetch_content(space, t, Some(name), &[])
    }

    fn fetch_link(&mut self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> Result<Option<Handle>> {
        self.fetch_content(space, t, None, outgoing)
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()
    }
}

impl LmdbStore {
    fn shared_lock(&self) -> Result<process_lock::Guard> {
        self.lock.shared().map_err(|e| StoreError::Backend(format!("{}: cannot lock the store: {e}", self.url)))
    }

    /// Runs `f` in a read transaction, holding the store's lock shared,
    /// after rereading the meta table: another process may have written
    /// since, its types and ids too.
    fn reading<T>(&mut self, f: impl FnOnce(&mut Self, &RoTxn<'_>) -> Result<T>) -> Result<T> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        self.refresh_meta(&r)?;
        f(self, &r)
    }
}
