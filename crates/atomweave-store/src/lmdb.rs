//! The embedded LMDB store: a directory, zero set-up, readers never block
//! the writer.
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
//! - `values`: atom id, key id -> the value ([`codec`]), for
//!   values other than the truth value.
//! - `meta`: the schema version, the next id, and the store's type table
//!   (code -> type name): a store survives changes to the type table.
//!
//! Writes go to a pending batch applied in one write transaction when it
//! fills, before any read, and at [`barrier`](crate::StorageNode::barrier):
//! a crash loses the batch in flight, never a part of an atom. A whole
//! space stored into an empty store takes a faster path (`bulk`), unless
//! the space may see one content twice (not
//! [`is_chain`](AtomSpace::is_chain): it is stored by content, one copy of
//! each, `AtomSpace::one_copy_each`). The faster path appends every table in key
//! order; until the last is written, a marker says the store is
//! incomplete, and opening it empties it again. That store
//! holds the store's lock exclusively throughout, and every other
//! transaction holds it shared (`lock`), so other processes wait for it
//! rather than write between its steps.

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch, TruthValue, Type, Value};
use std::borrow::Cow;

use heed::types::Bytes;
use heed::{Database, Env, EnvOpenOptions, RoTxn, RwTxn};

mod bulk;
mod lock;

use crate::{add, codec, holds_only_live, is_tv_key, live_values, Batching, IdCache, Op, Result, StorageNode, StoreError, BATCH};

type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// The layout version this code reads and writes.
pub const SCHEMA: u32 = 3;
/// Address space reserved for the map; the file grows only as data does.
const MAP_SIZE: usize = 1 << 40;
/// Longest key LMDB takes (its default build).
const MAX_KEY: usize = 511;

fn be(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// The atom and key ids of a `values` key (`LmdbStore::value_key`); a key
/// of another length is damage, not a panic.
fn value_key_ids(k: &[u8]) -> Result<(u64, u64)> {
    let k: [u8; 16] = k.try_into().map_err(|_| StoreError::Corrupt(format!("a value key of {} bytes, not 16", k.len())))?;
    let (id, key) = k.split_at(8);
    Ok((u64::from_be_bytes(id.try_into().expect("8 bytes")), u64::from_be_bytes(key.try_into().expect("8 bytes"))))
}

/// An incoming edge's data under its member: link type code, link.
fn edge_data(code: u16, link: u64) -> [u8; 10] {
    let mut e = [0u8; 10];
    e[..2].copy_from_slice(&code.to_be_bytes());
    e[2..].copy_from_slice(&be(link));
    e
}

/// What follows the type code in a node's `nodes` key: its name, or for a
/// name too long for a key, 0xFF (never a UTF-8 byte) and the name's hash.
fn key_tail(name: &str) -> Cow<'_, [u8]> {
    if 2 + name.len() <= MAX_KEY {
        Cow::Borrowed(name.as_bytes())
    } else {
        let mut k = vec![0xFF];
        // XXH3's output is fixed by its specification: stored hashes stay valid.
        k.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(name.as_bytes()).to_be_bytes());
        Cow::Owned(k)
    }
}

/// A link's members, each once (an incoming set lists a link once).
fn distinct(members: &[u64]) -> impl Iterator<Item = u64> + '_ {
    members.iter().enumerate().filter(|&(i, m)| !members[..i].contains(m)).map(|(_, &m)| m)
}

/// Appends entries in key order through one cursor that stays at the end
/// (no descent from the root per entry). In `dups` tables a key equal to
/// the one before (`last`, kept across calls) adds a duplicate.
fn append<K: AsRef<[u8]>, V: AsRef<[u8]>>(
    w: &mut RwTxn<'_>,
    db: Database<Bytes, Bytes>,
    entries: impl Iterator<Item = Result<(K, V)>>,
    last: &mut Vec<u8>,
    dups: bool,
) -> Result<()> {
    let mut cursor = db.iter_mut(w).map_err(backend)?;
    for entry in entries {
        let (k, v) = entry?;
        let (k, v) = (k.as_ref(), v.as_ref());
        let flags = if dups && last == k { heed::PutFlags::APPEND_DUP } else { heed::PutFlags::APPEND };
        put_at_end(&mut cursor, flags, k, v)?;
        if dups {
            last.clear();
            last.extend_from_slice(k);
        }
    }
    Ok(())
}

/// Appends one entry, after every key in the table, through `cursor`.
fn append_one(cursor: &mut heed::RwIter<'_, Bytes, Bytes>, k: &[u8], v: &[u8]) -> Result<()> {
    put_at_end(cursor, heed::PutFlags::APPEND, k, v)
}

fn put_at_end(cursor: &mut heed::RwIter<'_, Bytes, Bytes>, flags: heed::PutFlags, k: &[u8], v: &[u8]) -> Result<()> {
    // SAFETY: nothing read through the cursor is held across the append.
    unsafe { cursor.put_current_with_options::<Bytes>(flags, k, v) }.map_err(backend)
}

/// Appends `x` as a LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The member ids of a link record's body.
fn members_of(id: u64, mut body: &[u8], out: &mut Vec<u64>) -> Result<()> {
    out.clear();
    while !body.is_empty() {
        let (mut x, mut shift) = (0u64, 0);
        loop {
            let (&b, rest) = body.split_first().ok_or_else(|| StoreError::Corrupt(format!("link {id}'s members end early")))?;
            body = rest;
            if shift > 63 {
                return Err(StoreError::Corrupt(format!("link {id} has a member id too long")));
            }
            x |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        // Members are stored before the links that hold them: a member id
        // not below the link's is damage, and following it could loop.
        if x >= id {
            return Err(StoreError::Corrupt(format!("link {id} holds atom {x}, which was not stored before it")));
        }
        out.push(x);
    }
    Ok(())
}

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

/// Link ids fit the low 48 bits of a packed incoming edge.
const EDGE_LINK_BITS: u32 = 48;

/// Index entries per write transaction when writing them in order.
const INDEX_BATCH: usize = 1 << 16;

struct Dbs {
    meta: Database<Bytes, Bytes>,
    atoms: Database<Bytes, Bytes>,
    nodes: Database<Bytes, Bytes>,
    links: Database<Bytes, Bytes>,
    incoming: Database<Bytes, Bytes>,
    values: Database<Bytes, Bytes>,
}

/// A decoded atom record.
enum Record {
    Node(Type, String, TruthValue),
    Link(Type, Vec<u64>, TruthValue),
}

const LINK_FLAG: u8 = 1;
const STV_FLAG: u8 = 2;
const CTV_FLAG: u8 = 4;

/// A record: type code, flags, truth value, then the name or member ids.
fn encode_record(code: u16, link: bool, tv: TruthValue, payload: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut rec = code.to_le_bytes().to_vec();
    rec.push(0);
    rec[2] = u8::from(link) * LINK_FLAG;
    match tv {
        _ if tv.is_default() => {}
        TruthValue::Simple { strength, confidence } => {
            rec[2] |= STV_FLAG;
            rec.extend_from_slice(&strength.to_le_bytes());
            rec.extend_from_slice(&confidence.to_le_bytes());
        }
        TruthValue::Count { mean, confidence, count } => {
            rec[2] |= CTV_FLAG;
            for x in [mean, confidence, count] {
                rec.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    payload(&mut rec);
    rec
}

/// Atom records read and added at a time by `load_atomspace`.
const LOAD_CHUNK: usize = 16384;

/// Levels of fewer links than this are added a link at a time.
const SMALL_LEVEL: usize = 8;

/// An atom record of the store, read.
struct Stored<'r> {
    id: u64,
    t: Type,
    link: bool,
    tv: TruthValue,
    /// The name, or the members' ids.
    body: &'r [u8],
}

impl<'r> Stored<'r> {
    fn name(&self) -> Result<&'r str> {
        std::str::from_utf8(self.body).map_err(|_| StoreError::Corrupt(format!("atom {}'s name", self.id)))
    }

    /// A link's members as atoms (`ids` a scratch list; `members_of`
    /// refuses ids not below the link's): all added before it.
    fn members(&self, handle_of: &[u32], ids: &mut Vec<u64>, out: &mut Vec<Handle>) -> Result<()> {
        members_of(self.id, self.body, ids)?;
        out.clear();
        for &m in ids.iter() {
            match handle_of.get(m as usize) {
                Some(&raw) if raw != u32::MAX => out.push(Handle::from_u32(raw)),
                _ => return Err(StoreError::Corrupt(format!("link {} holds atom {m}, which is not stored before it", self.id))),
            }
        }
        Ok(())
    }

    /// Adds the link on its own.
    fn add_link(&self, space: &AtomSpace, handle_of: &[u32], ids: &mut Vec<u64>, out: &mut Vec<Handle>) -> Result<Handle> {
        self.members(handle_of, ids, out)?;
        Ok(space.add_link(self.t, out)?)
    }
}

/// Adds a chunk of records (in id order: members before the links that
/// hold them, in this chunk or an earlier one, whose atoms `handle_of`
/// gives) to `space`, entering their atoms in `handle_of`: the nodes in one
/// `add_nodes`, the links a level at a time (a level's members all lie
/// below it) in one `add_links` each, so that the space's cache misses
/// overlap, then the truth values in id order. A chunk holding a StateLink
/// or GrantLink, whose adding replaces or refuses by key, is added in id
/// order, one atom at a time.
fn add_chunk(space: &AtomSpace, chunk: &[Stored<'_>], handle_of: &mut [u32]) -> Result<()> {
    let mut members: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    if chunk.iter().any(|rec| rec.t.is_added_by_key()) {
        for rec in chunk {
            let h = if rec.link { rec.add_link(space, handle_of, &mut members, &mut out)? } else { space.add_node(rec.t, rec.name()?)? };
            if !rec.tv.is_default() {
                space.set_tv(h, rec.tv)?;
            }
            handle_of[rec.id as usize] = h.to_u32();
        }
        return Ok(());
    }
    let mut nodes = NodeBatch::new();
    for rec in chunk.iter().filter(|rec| !rec.link) {
        nodes.push(rec.t, rec.name()?);
    }
    let mut added = space.add_nodes(&nodes)?.into_iter();
    for rec in chunk.iter().filter(|rec| !rec.link) {
        handle_of[rec.id as usize] = added.next().expect("one atom per node").to_u32();
    }
    // Each link's level: one above its highest member of this chunk's links.
    let first = chunk[0].id;
    let mut level: Vec<u32> = vec![0; chunk.len()];
    let mut links: Vec<usize> = Vec::new();
    for (i, rec) in chunk.iter().enumerate().filter(|(_, rec)| rec.link) {
        members_of(rec.id, rec.body, &mut members)?;
        let mut top = 0;
        for &m in members.iter().filter(|&&m| m >= first) {
            let j = chunk.partition_point(|r| r.id < m);
            if chunk.get(j).is_some_and(|r| r.id == m && r.link) {
                top = top.max(level[j]);
            }
        }
        level[i] = top + 1;
        links.push(i);
    }
    links.sort_by_key(|&i| level[i]);
    let mut batch = LinkBatch::new();
    for group in links.chunk_by(|&a, &b| level[a] == level[b]) {
        // A batch takes every shard's lock: a level of a few links (a
        // chain nested deep) goes one link at a time.
        if group.len() < SMALL_LEVEL {
            for &i in group {
                handle_of[chunk[i].id as usize] = chunk[i].add_link(space, handle_of, &mut members, &mut out)?.to_u32();
            }
            continue;
        }
        batch.clear();
        for &i in group {
            chunk[i].members(handle_of, &mut members, &mut out)?;
            batch.push(chunk[i].t, &out);
        }
        for (&i, h) in group.iter().zip(space.add_links(&batch)?) {
            handle_of[chunk[i].id as usize] = h.to_u32();
        }
    }
    for rec in chunk.iter().filter(|rec| !rec.tv.is_default()) {
        space.set_tv(Handle::from_u32(handle_of[rec.id as usize]), rec.tv)?;
    }
    Ok(())
}

/// The parts of a record: type code, is it a link, truth value, payload.
fn split_record(id: u64, bytes: &[u8]) -> Result<(u16, bool, TruthValue, &[u8])> {
    let short = || StoreError::Corrupt(format!("atom {id} has a short record"));
    if bytes.len() < 3 {
        return Err(short());
    }
    let (code, flags) = (u16::from_le_bytes([bytes[0], bytes[1]]), bytes[2]);
    let f = |i: usize| f64::from_le_bytes(bytes[3 + 8 * i..11 + 8 * i].try_into().expect("8 bytes"));
    let (tv, rest) = if flags & STV_FLAG != 0 {
        if bytes.len() < 19 {
            return Err(short());
        }
        (TruthValue::simple(f(0), f(1)), &bytes[19..])
    } else if flags & CTV_FLAG != 0 {
        if bytes.len() < 27 {
            return Err(short());
        }
        (TruthValue::count(f(0), f(1), f(2)), &bytes[27..])
    } else {
        (TruthValue::DEFAULT, &bytes[3..])
    };
    Ok((code, flags & LINK_FLAG != 0, tv, rest))
}

pub struct LmdbStore {
    url: String,
    env: Env,
    lock: std::sync::Arc<lock::StoreLock>,
    db: Dbs,
    /// The store's type table: names by code, resolved where known here.
    type_names: Vec<String>,
    types_of_code: Vec<Option<Type>>,
    code_of_type: HashMap<Type, u16>,
    next_id: u64,
    pending: Vec<Op>,
    pending_space: Option<AtomSpace>,
    /// Store ids of atoms of `cache_space`, as found or made.
    ids: IdCache,
    cache_space: Option<AtomSpace>,
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
        let lock = lock::StoreLock::open(std::path::Path::new(path)).map_err(|e| open_err(format!("cannot open its lock file: {e}")))?;
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
            type_names: Vec::new(),
            types_of_code: Vec::new(),
            code_of_type: HashMap::default(),
            next_id: 1,
            pending: Vec::new(),
            pending_space: None,
            ids: IdCache::default(),
            cache_space: None,
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

    /// Use the id cache for `space` (a different space starts a fresh one).
    fn use_space(&mut self, space: &AtomSpace) {
        if self.cache_space.as_ref() != Some(space) {
            self.ids.clear();
            self.cache_space = Some(space.clone());
        }
    }

    /// The code of a type read from a record (so the store has one).
    fn record_code(&mut self, t: Type) -> Result<u16> {
        self.code_known(t).ok_or_else(|| StoreError::Corrupt(format!("no code for type {}", t.name())))
    }

    /// The store's code for `t`, if it has one (also for a type registered
    /// here after the store was opened).
    fn code_known(&mut self, t: Type) -> Option<u16> {
        if let Some(&c) = self.code_of_type.get(&t) {
            return Some(c);
        }
        let c = u16::try_from(self.type_names.iter().position(|n| n == t.name())?).ok()?;
        self.types_of_code[usize::from(c)] = Some(t);
        self.code_of_type.insert(t, c);
        Some(c)
    }

    fn code(&mut self, w: &mut RwTxn<'_>, t: Type) -> Result<u16> {
        if let Some(c) = self.code_known(t) {
            return Ok(c);
        }
        let code = u16::try_from(self.type_names.len()).map_err(|_| StoreError::Backend("more than 65536 types".into()))?;
        let mut key = b"type:".to_vec();
        key.extend_from_slice(&code.to_be_bytes());
        self.db.meta.put(w, &key, t.name().as_bytes()).map_err(backend)?;
        self.type_names.push(t.name().to_string());
        self.types_of_code.push(Some(t));
        self.code_of_type.insert(t, code);
        Ok(code)
    }

    fn type_of_code(&self, code: u16) -> Result<Type> {
        match (self.types_of_code.get(usize::from(code)), self.type_names.get(usize::from(code))) {
            (Some(Some(t)), _) => Ok(*t),
            // Registered since the store was opened?
            (_, Some(name)) => atomweave::types::from_name_or_family(name)
                .ok_or_else(|| StoreError::Backend(format!("the store holds atoms of type {name}, which is not known here (register it first)"))),
            _ => Err(StoreError::Corrupt(format!("type code {code} is not in the store's type table"))),
        }
    }

    /// Rereads what the store's meta table says: the next id and the type
    /// table. Done at the start of every write, so that a failed write of
    /// ours, or a write by another process, leaves no stale copy here.
    fn refresh_meta(&mut self, r: &RoTxn<'_>) -> Result<()> {
        self.next_id = match self.db.meta.get(r, b"next_id").map_err(backend)? {
            Some(v) => u64::from_le_bytes(v.try_into().map_err(|_| StoreError::Corrupt("next_id".into()))?),
            None => 1,
        };
        // Reads do this too, so the common case, an unchanged table, only compares names.
        let mut unchanged = true;
        let mut count = 0;
        for entry in self.db.meta.prefix_iter(r, b"type:").map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let code = k.get(5..7).map(|c| usize::from(u16::from_be_bytes([c[0], c[1]])));
            if code.and_then(|c| self.type_names.get(c)).is_none_or(|n| n.as_bytes() != v) {
                unchanged = false;
                break;
            }
            count += 1;
        }
        if unchanged && count == self.type_names.len() {
            return Ok(());
        }
        self.type_names.clear();
        self.types_of_code.clear();
        self.code_of_type.clear();
        for entry in self.db.meta.prefix_iter(r, b"type:").map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let code = usize::from(u16::from_be_bytes(k.get(5..7).and_then(|c| c.try_into().ok()).ok_or_else(|| StoreError::Corrupt("a type code".into()))?));
            let name = std::str::from_utf8(v).map_err(|_| StoreError::Corrupt("a type name".into()))?;
            if self.type_names.len() <= code {
                self.type_names.resize(code + 1, String::new());
                self.types_of_code.resize(code + 1, None);
            }
            self.type_names[code] = name.to_string();
            self.types_of_code[code] = Type::from_name(name);
            if let Some(t) = self.types_of_code[code] {
                self.code_of_type.insert(t, code as u16);
            }
        }
        Ok(())
    }

    /// A node's `nodes` key, and whether it is hashed.
    fn node_key(&self, code: u16, name: &str) -> (Vec<u8>, bool) {
        let tail = key_tail(name);
        let hashed = matches!(tail, Cow::Owned(_));
        let mut k = code.to_be_bytes().to_vec();
        k.extend_from_slice(&tail);
        (k, hashed)
    }

    fn link_key(code: u16, members: &[u64]) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3Default::new();
        h.update(&code.to_le_bytes());
        members.iter().for_each(|m| h.update(&m.to_le_bytes()));
        h.digest()
    }

    /// The id of a stored link with this content, if any.
    fn find_link(&self, r: &RoTxn<'_>, t: Type, members: &[u64]) -> Result<Option<u64>> {
        let Some(code) = self.code_of_type.get(&t).copied() else { return Ok(None) };
        let Some(ids) = self.db.links.get_duplicates(r, &be(Self::link_key(code, members))).map_err(backend)? else { return Ok(None) };
        for entry in ids {
            let (_, v) = entry.map_err(backend)?;
            let id = u64::from_be_bytes(v.try_into().map_err(|_| StoreError::Corrupt("a link id that is not 8 bytes".into()))?);
            if matches!(self.record(r, id)?, Some(Record::Link(rt, m, _)) if rt == t && m == members) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn record(&self, r: &RoTxn<'_>, id: u64) -> Result<Option<Record>> {
        let Some(bytes) = self.db.atoms.get(r, &be(id)).map_err(backend)? else { return Ok(None) };
        let (code, link, tv, body) = split_record(id, bytes)?;
        let t = self.type_of_code(code)?;
        Ok(Some(if link {
            let mut members = Vec::new();
            members_of(id, body, &mut members)?;
            Record::Link(t, members, tv)
        } else {
            Record::Node(t, std::str::from_utf8(body).map_err(|_| StoreError::Corrupt(format!("atom {id}'s name")))?.to_string(), tv)
        }))
    }

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

    fn stored_tv(&self, r: &RoTxn<'_>, id: u64) -> Result<TruthValue> {
        let bytes = self.db.atoms.get(r, &be(id)).map_err(backend)?.ok_or_else(|| StoreError::Corrupt(format!("atom {id} vanished")))?;
        Ok(split_record(id, bytes)?.2)
    }

    /// The id of content already stored, if any.
    fn find(&self, r: &RoTxn<'_>, key: &[u8], hashed: bool, matches: impl Fn(&Record) -> bool, db: Database<Bytes, Bytes>) -> Result<Option<u64>> {
        let Some(v) = db.get(r, key).map_err(backend)? else { return Ok(None) };
        for c in v.chunks_exact(8) {
            let id = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            if !hashed || self.record(r, id)?.is_some_and(|rec| matches(&rec)) {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The store id of `h`: found by content, or stored now (members first).
    fn id_for(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, h: Handle) -> Result<u64> {
        if let Some(&id) = self.ids.get(&h) {
            return Ok(id);
        }
        let mut stack = vec![(h, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.ids.contains_key(&x) {
                continue;
            }
            let t = space.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            let tv = space.get_tv(x).unwrap_or_default();
            let id = if let Some(name) = space.name(x) {
                self.put_node(w, t, name, tv)?
            } else if !expanded {
                stack.push((x, true));
                let out = space.outgoing(x).unwrap_or(&[]);
                stack.extend(out.iter().filter(|m| !self.ids.contains_key(m)).map(|&m| (m, false)));
                continue;
            } else {
                let mut members: Vec<u64> = space.outgoing(x).unwrap_or(&[]).iter().map(|m| self.ids[m]).collect();
                if t.is_unordered() {
                    members.sort_unstable();
                }
                self.put_link(w, t, &members, tv)?
            };
            self.ids.insert(x, id);
        }
        Ok(self.ids[&h])
    }

    /// The next store id. Ids stay below 2^32 (a space's handles do): a
    /// next id past that is damage, as loading would say.
    fn new_id(&mut self) -> Result<u64> {
        let id = self.next_id;
        if id >= u64::from(u32::MAX) {
            return Err(StoreError::Corrupt(format!("the store's next atom id is {id}, past any a store makes")));
        }
        self.next_id += 1;
        Ok(id)
    }

    fn put_node(&mut self, w: &mut RwTxn<'_>, t: Type, name: &str, tv: TruthValue) -> Result<u64> {
        let code = self.code(w, t)?;
        let (key, hashed) = self.node_key(code, name);
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
        self.db.links.put(w, &be(Self::link_key(code, members)), &be(id)).map_err(backend)?;
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

    fn value_key(id: u64, key_id: u64) -> [u8; 16] {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&be(id));
        k[8..].copy_from_slice(&be(key_id));
        k
    }

    /// Writes one value of `h` (stored as `id`); `None` removes it.
    fn put_value(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, id: u64, key: Handle, v: Option<&Value>) -> Result<()> {
        if is_tv_key(space, key) {
            let tv = match v {
                Some(Value::Truth(tv)) => *tv,
                _ => TruthValue::DEFAULT,
            };
            return self.put_tv(w, id, tv);
        }
        let key_id = self.id_for(w, space, key)?;
        let k = Self::value_key(id, key_id);
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

    /// Applies the pending writes in one transaction ([`Batching::flush_pending`]).
    fn flush(&mut self) -> Result<()> {
        self.flush_pending()
    }

    fn reload_meta(&mut self) -> Result<()> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        self.refresh_meta(&r)
    }

    /// The stored value plus `delta`, written back in the same transaction.
    fn apply_update(&mut self, w: &mut RwTxn<'_>, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<()> {
        let id = self.id_for(w, space, h)?;
        if id >= self.made_from {
            // First stored by this write: the store gets the space's value,
            // which already counts the update.
            return self.put_value(w, space, id, key, space.get_value(h, key).as_ref());
        }
        let tv_key = is_tv_key(space, key);
        let stored = if tv_key {
            Some(Value::Truth(self.stored_tv(w, id)?))
        } else {
            let key_id = self.id_for(w, space, key)?;
            match self.db.values.get(w, &Self::value_key(id, key_id)).map_err(backend)? {
                // An old value that held atoms is replaced by numbers: its atoms need no handles.
                Some(bytes) => Some(codec::decode(bytes, &mut |_| Ok(Handle::from_u32(u32::MAX)))?),
                None => None,
            }
        };
        let new = add(stored, tv_key, delta);
        self.put_value(w, space, id, key, Some(&new))
    }

    /// The id of `h` if the store holds it, without storing anything.
    /// Members first, with a work list: links nest arbitrarily deep.
    fn lookup(&mut self, r: &RoTxn<'_>, space: &AtomSpace, h: Handle) -> Result<Option<u64>> {
        if let Some(&id) = self.ids.get(&h) {
            return Ok(Some(id));
        }
        let mut stack = vec![(h, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.ids.contains_key(&x) {
                continue;
            }
            let t = space.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            let Some(code) = self.code_known(t) else { return Ok(None) };
            let id = if let Some(name) = space.name(x) {
                let (key, hashed) = self.node_key(code, name);
                self.find(r, &key, hashed, |rec| matches!(rec, Record::Node(rt, n, _) if *rt == t && n == name), self.db.nodes)?
            } else if !expanded {
                stack.push((x, true));
                let out = space.outgoing(x).unwrap_or(&[]);
                stack.extend(out.iter().filter(|m| !self.ids.contains_key(m)).map(|&m| (m, false)));
                continue;
            } else {
                let mut members = Vec::new();
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
                self.find_link(r, t, &members)?
            };
            match id {
                Some(id) => {
                    self.ids.insert(x, id);
                }
                None => return Ok(None),
            }
        }
        Ok(self.ids.get(&h).copied())
    }

    /// The atom stored as `id`, added to the space (members first).
    fn materialize(&mut self, r: &RoTxn<'_>, space: &AtomSpace, id: u64, known: &mut HashMap<u64, Handle>) -> Result<Handle> {
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
    fn load_values(&mut self, r: &RoTxn<'_>, space: &AtomSpace, id: u64, h: Handle, known: &mut HashMap<u64, Handle>) -> Result<()> {
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

    fn set_loaded(&mut self, r: &RoTxn<'_>, space: &AtomSpace, h: Handle, key_id: u64, bytes: &[u8], known: &mut HashMap<u64, Handle>) -> Result<()> {
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
}

/// The first entry in one sorted list and not the other, if the lists differ.
fn first_difference<T: Ord + Copy>(a: &[T], b: &[T]) -> Option<T> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) => return Some(*x.min(y)),
            (Some(x), None) | (None, Some(x)) => return Some(*x),
            (None, None) => unreachable!("the loop condition"),
        }
    }
    None
}

impl StorageNode for LmdbStore {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.queue_store(space, h, Op::Atom(h))
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.queue_store(space, h, Op::Value(h, key))
    }

    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
        self.queue_update(space, h, key, delta)
    }

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        self.flush()?;
        self.use_space(space);
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        let Some(id) = self.lookup(&r, space, h)? else { return Ok(false) };
        space.set_tv(h, self.stored_tv(&r, id)?)?;
        let mut known = HashMap::default();
        known.insert(id, h);
        self.load_values(&r, space, id, h, &mut known)?;
        Ok(true)
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        self.flush()?;
        self.use_space(space);
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        let Some(id) = self.lookup(&r, space, h)? else { return Ok(false) };
        if is_tv_key(space, key) {
            space.set_tv(h, self.stored_tv(&r, id)?)?;
            return Ok(true);
        }
        let Some(key_id) = self.lookup(&r, space, key)? else { return Ok(false) };
        let Some(bytes) = self.db.values.get(&r, &Self::value_key(id, key_id)).map_err(backend)?.map(<[u8]>::to_vec) else { return Ok(false) };
        let mut known = HashMap::default();
        self.set_loaded(&r, space, h, key_id, &bytes, &mut known)?;
        Ok(true)
    }

    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
        self.fetch_incoming(space, h, None, recursive)
    }

    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
        self.fetch_incoming(space, h, Some(t), false)
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.flush()?;
        self.use_space(space);
        let Some(code) = self.code_known(t) else { return Ok(0) };
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        let ids: Vec<u64> = self
            .db
            .atoms
            .iter(&r)
            .map_err(backend)?
            .filter_map(|e| match e {
                Ok((k, v)) if v.len() >= 3 && u16::from_le_bytes([v[0], v[1]]) == code => Some(Ok(u64::from_be_bytes(k.try_into().ok()?))),
                Ok(_) => None,
                Err(e) => Some(Err(backend(e))),
            })
            .collect::<Result<_>>()?;
        let mut known = HashMap::default();
        for &id in &ids {
            let h = self.materialize(&r, space, id, &mut known)?;
            self.load_values(&r, space, id, h, &mut known)?;
        }
        Ok(ids.len())
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.use_space(space);
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        // Ids are dense and members come first: one pass, a vector for the
        // map, as long as the highest id stored (not the next id the store
        // records, which damage could make anything).
        let last = match self.db.atoms.last(&r).map_err(backend)? {
            Some((k, _)) => u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?),
            None => 0,
        };
        let len = last
            .checked_add(1)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= u32::MAX as usize)
            .ok_or_else(|| StoreError::Corrupt(format!("atom id {last} is beyond what a store makes")))?;
        let mut handle_of: Vec<u32> = Vec::new();
        handle_of.try_reserve_exact(len).map_err(|e| StoreError::Corrupt(format!("atom id {last} would need a table the memory cannot hold ({e})")))?;
        handle_of.resize(len, u32::MAX);
        let mut n = 0u64;
        let mut chunk: Vec<Stored<'_>> = Vec::with_capacity(LOAD_CHUNK);
        let mut iter = self.db.atoms.iter(&r).map_err(backend)?;
        loop {
            chunk.clear();
            for entry in iter.by_ref().take(LOAD_CHUNK) {
                let (k, v) = entry.map_err(backend)?;
                let id = u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?);
                if id as usize >= handle_of.len() {
                    return Err(StoreError::Corrupt(format!("atom {id} is past the highest id stored")));
                }
                let (code, link, tv, body) = split_record(id, v)?;
                chunk.push(Stored { id, t: self.type_of_code(code)?, link, tv, body });
            }
            if chunk.is_empty() {
                break;
            }
            add_chunk(space, &chunk, &mut handle_of)?;
            for rec in &chunk {
                self.ids.insert(Handle::from_u32(handle_of[rec.id as usize]), rec.id);
            }
            n += chunk.len() as u64;
            progress(n);
        }
        let mut known: HashMap<u64, Handle> = HashMap::default();
        let values = self.db.values;
        for entry in values.iter(&r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (id, key_id) = value_key_ids(k)?;
            let h = Handle::from_u32(
                *handle_of
                    .get(id as usize)
                    .filter(|&&x| x != u32::MAX)
                    .ok_or_else(|| StoreError::Corrupt(format!("a value of atom {id}, which is not stored")))?,
            );
            if let Some(&raw) = handle_of.get(key_id as usize).filter(|&&x| key_id != 0 && x != u32::MAX) {
                known.insert(key_id, Handle::from_u32(raw));
            }
            let bytes = v.to_vec();
            self.set_loaded(&r, space, h, key_id, &bytes, &mut known)?;
        }
        progress(n);
        Ok(n)
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        // No other process writes (or reads) until the store is whole.
        let _alone = self.lock.exclusive().map_err(|e| StoreError::Backend(format!("{}: cannot lock the store: {e}", self.url)))?;
        self.use_space(space);
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

    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        self.delete_stored(space, h, recursive)
    }

    fn barrier(&mut self) -> Result<()> {
        self.flush()?;
        self.env.force_sync().map_err(backend)
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()
    }
}

impl LmdbStore {
    fn clear_indexing(&mut self) -> Result<()> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let mut w = env.write_txn().map_err(backend)?;
        self.db.meta.delete(&mut w, b"indexing").map_err(backend)?;
        w.commit().map_err(backend)
    }

    /// Did a first whole-space store stop before finishing? Asked holding
    /// the lock: a store still running would hold it exclusively, so the
    /// marker is this process's failed one or a dead process's.
    fn indexing_unfinished(&self) -> Result<bool> {
        let _lock = self.shared_lock()?;
        let r = self.env.read_txn().map_err(backend)?;
        Ok(self.db.meta.get(&r, b"indexing").map_err(backend)?.is_some())
    }

    fn shared_lock(&self) -> Result<lock::Guard> {
        self.lock.shared().map_err(|e| StoreError::Backend(format!("{}: cannot lock the store: {e}", self.url)))
    }

    /// Appends entries in key order (and, in `dups` tables, data order
    /// within a key), a write transaction per [`INDEX_BATCH`].
    fn append_all<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        db: Database<Bytes, Bytes>,
        entries: impl Iterator<Item = Result<(K, V)>>,
        dups: bool,
    ) -> Result<()> {
        let mut last: Vec<u8> = Vec::new();
        let mut entries = entries.peekable();
        while entries.peek().is_some() {
            self.write(|_, w| append(w, db, entries.by_ref().take(INDEX_BATCH), &mut last, dups))?;
        }
        Ok(())
    }

    /// Runs `f` in one write transaction, committed with the next id; on
    /// failure nothing of it is kept, nor the ids it gave out.
    fn write<T>(&mut self, f: impl FnOnce(&mut Self, &mut RwTxn<'_>) -> Result<T>) -> Result<T> {
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

    /// Empties a store whose first whole-space store did not finish: the
    /// store was empty when it began, its indexes and values were still
    /// held back, so nothing of it was ever complete.
    fn discard_unfinished(&mut self) -> Result<()> {
        let _lock = self.shared_lock()?;
        let mut w = self.env.write_txn().map_err(backend)?;
        for db in [self.db.atoms, self.db.nodes, self.db.links, self.db.incoming, self.db.values] {
            db.clear(&mut w).map_err(backend)?;
        }
        self.db.meta.delete(&mut w, b"next_id").map_err(backend)?;
        self.db.meta.delete(&mut w, b"indexing").map_err(backend)?;
        w.commit().map_err(backend)?;
        self.next_id = 1;
        Ok(())
    }

    /// `store_atomspace` into a store that holds atoms: each atom found
    /// by its content or added, its values replaced.
    fn store_chunks(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
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

    fn delete_stored(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        self.flush()?;
        self.use_space(space);
        // Links in the space hold it: refused before the store is touched.
        if !recursive && space.incoming_size(h).unwrap_or(0) > 0 {
            return Ok(false);
        }
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let mut w = env.write_txn().map_err(backend)?;
        self.refresh_meta(&w)?;
        let found = {
            let r: &RoTxn<'_> = &w;
            self.lookup(r, space, h)?
        };
        if let Some(id) = found {
            // The atom and, with `recursive`, everything above it, tops first.
            let mut doomed = vec![id];
            let mut i = 0;
            while i < doomed.len() {
                let holders = self.holders(&w, &be(doomed[i]))?;
                if !holders.is_empty() && !recursive {
                    return Ok(false);
                }
                let new: Vec<u64> = holders.into_iter().filter(|x| !doomed.contains(x)).collect();
                doomed.extend(new);
                i += 1;
            }
            for &x in doomed.iter().rev() {
                self.remove_stored(&mut w, x)?;
            }
            self.delete_values_naming(&mut w, &doomed)?;
            w.commit().map_err(backend)?;
            self.ids.clear();
        } else {
            drop(w);
        }
        match space.extract(h, recursive) {
            Ok(()) => Ok(true),
            Err(atomweave::Error::HasIncoming { .. }) => Ok(false),
            Err(atomweave::Error::InvalidHandle(_)) => Ok(found.is_some()),
            Err(e) => Err(e.into()),
        }
    }
}

impl LmdbStore {
    /// Checks the store's invariants: every member of a stored link is
    /// stored, every content key and incoming edge points at a stored atom
    /// that matches it, every value belongs to a stored atom. Returns the
    /// number of atoms.
    pub fn check(&mut self) -> Result<u64> {
        self.flush()?;
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        let bad = |msg: String| Err(StoreError::Corrupt(msg));
        let mut n = 0;
        // The link and edge entries the records call for, compared with the
        // tables' as sorted lists (a member may have millions of edges).
        let mut want_links: Vec<(u64, u64)> = Vec::new();
        let mut want_edges: Vec<(u64, u16, u64)> = Vec::new();
        for entry in self.db.atoms.iter(&r).map_err(backend)? {
            let (k, _) = entry.map_err(backend)?;
            let id = u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?);
            n += 1;
            match self.record(&r, id)?.expect("iterated") {
                Record::Node(t, name, _) => {
                    let code = self.record_code(t)?;
                    let (key, hashed) = self.node_key(code, &name);
                    let ids = self.db.nodes.get(&r, &key).map_err(backend)?.unwrap_or_default();
                    if !(if hashed { ids.chunks_exact(8).any(|c| c == id.to_le_bytes()) } else { ids == id.to_le_bytes() }) {
                        return bad(format!("atom {id} cannot be found by its content"));
                    }
                }
                Record::Link(t, members, _) => {
                    let code = self.record_code(t)?;
                    for &m in &members {
                        if self.db.atoms.get(&r, &be(m)).map_err(backend)?.is_none() {
                            return bad(format!("link {id} holds atom {m}, which is not stored"));
                        }
                    }
                    want_edges.extend(distinct(&members).map(|m| (m, code, id)));
                    want_links.push((Self::link_key(code, &members), id));
                }
            }
        }
        let mut links: Vec<(u64, u64)> = Vec::with_capacity(want_links.len());
        for entry in self.db.links.iter(&r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (Ok(k), Ok(v)) = (<[u8; 8]>::try_from(k), <[u8; 8]>::try_from(v)) else { return bad("a links entry that is not 8 + 8 bytes".into()) };
            links.push((u64::from_be_bytes(k), u64::from_be_bytes(v)));
        }
        want_links.sort_unstable();
        if let Some((hash, id)) = first_difference(&want_links, &links) {
            return bad(format!("the links table and the records disagree about link {id} (hash {hash:016x})"));
        }
        drop((links, want_links));
        let mut edges: Vec<(u64, u16, u64)> = Vec::with_capacity(want_edges.len());
        for entry in self.db.incoming.iter(&r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (Ok(k), Ok(v)) = (<[u8; 8]>::try_from(k), <[u8; 10]>::try_from(v)) else {
                return bad(format!("an incoming edge of {} + {} bytes, not 8 + 10", k.len(), v.len()));
            };
            edges.push((u64::from_be_bytes(k), u16::from_be_bytes([v[0], v[1]]), u64::from_be_bytes(v[2..].try_into().expect("10 bytes"))));
        }
        want_edges.sort_unstable();
        if let Some((m, _, l)) = first_difference(&want_edges, &edges) {
            return bad(format!("the incoming table and the records disagree about the edge from {m} to link {l}"));
        }
        for entry in self.db.values.iter(&r).map_err(backend)? {
            let (k, _) = entry.map_err(backend)?;
            let (a, key) = value_key_ids(k)?;
            for x in [a, key].into_iter().filter(|&x| x != 0) {
                if self.db.atoms.get(&r, &be(x)).map_err(backend)?.is_none() {
                    return bad(format!("a value of atom {a} under key {key} refers to atom {x}, which is not stored"));
                }
            }
        }
        Ok(n)
    }

    fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.use_space(space);
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        // Another process may have written since: its types and ids too.
        self.refresh_meta(&r)?;
        let Some(id) = self.lookup(&r, space, h)? else { return Ok(0) };
        let mut prefix = be(id).to_vec();
        if let Some(t) = t {
            let Some(code) = self.code_known(t) else { return Ok(0) };
            prefix.extend_from_slice(&code.to_be_bytes());
        }
        let mut known = HashMap::default();
        known.insert(id, h);
        // Links loaded as members of others are in `known` too, but still to be counted and walked.
        let mut visited: hashbrown::HashSet<u64, foldhash::fast::RandomState> = hashbrown::HashSet::default();
        visited.insert(id);
        let mut work = vec![prefix];
        let mut loaded = 0;
        while let Some(prefix) = work.pop() {
            let holders = self.holders(&r, &prefix)?;
            for l in holders {
                if !visited.insert(l) {
                    continue;
                }
                let lh = self.materialize(&r, space, l, &mut known)?;
                self.load_values(&r, space, l, lh, &mut known)?;
                loaded += 1;
                if recursive {
                    work.push(be(l).to_vec());
                }
            }
        }
        Ok(loaded)
    }

    /// Removes stored atom `id`: record, content key, incoming edges, values.
    fn remove_stored(&mut self, w: &mut RwTxn<'_>, id: u64) -> Result<()> {
        let Some(rec) = self.record(w, id)? else { return Ok(()) };
        match &rec {
            Record::Node(t, name, _) => {
                let code = self.record_code(*t)?;
                let (key, hashed) = self.node_key(code, name);
                let db = self.db.nodes;
                let rest: Vec<u8> = if hashed {
                    db.get(w, &key).map_err(backend)?.unwrap_or_default().chunks_exact(8).filter(|c| *c != id.to_le_bytes()).flatten().copied().collect()
                } else {
                    Vec::new()
                };
                if rest.is_empty() {
                    db.delete(w, &key).map_err(backend)?;
                } else {
                    db.put(w, &key, &rest).map_err(backend)?;
                }
            }
            Record::Link(t, members, _) => {
                let code = self.record_code(*t)?;
                for &m in members {
                    self.db.incoming.delete_one_duplicate(w, &be(m), &edge_data(code, id)).map_err(backend)?;
                }
                self.db.links.delete_one_duplicate(w, &be(Self::link_key(code, members)), &be(id)).map_err(backend)?;
            }
        }
        self.db.atoms.delete(w, &be(id)).map_err(backend)?;
        self.delete_values(w, id)
    }

    /// Deletes the values whose key is one of `gone`, or that hold one of
    /// `gone`: they could not be loaded again. A scan of every value; values
    /// other than truth values are few next to atoms, and deletes are rare.
    fn delete_values_naming(&self, w: &mut RwTxn<'_>, gone: &[u64]) -> Result<()> {
        let gone: hashbrown::HashSet<u64, foldhash::fast::RandomState> = gone.iter().copied().collect();
        let mut all = self.db.values.iter_mut(w).map_err(backend)?;
        while let Some(entry) = all.next() {
            let (k, v) = entry.map_err(backend)?;
            let key =
                k.get(8..16).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes"))).ok_or_else(|| StoreError::Corrupt("a short value key".into()))?;
            let mut holds_gone = false;
            codec::decode(v, &mut |a| {
                holds_gone |= gone.contains(&a);
                Ok(Handle::from_u32(0))
            })?;
            if holds_gone || gone.contains(&key) {
                // SAFETY: nothing borrowed from the iterator is kept across the deletion.
                unsafe { all.del_current() }.map_err(backend)?;
            }
        }
        Ok(())
    }

    /// Deletes every value stored for atom `id`.
    fn delete_values(&self, w: &mut RwTxn<'_>, id: u64) -> Result<()> {
        let mut old = self.db.values.prefix_iter_mut(w, &be(id)).map_err(backend)?;
        while let Some(entry) = old.next() {
            entry.map_err(backend)?;
            // SAFETY: nothing borrowed from the iterator is kept across the deletion.
            unsafe { old.del_current() }.map_err(backend)?;
        }
        Ok(())
    }

    /// The links whose incoming edges start with `prefix` (a member id, and
    /// maybe a link type code). A short edge is damage, not a panic.
    fn holders(&self, r: &RoTxn<'_>, prefix: &[u8]) -> Result<Vec<u64>> {
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

impl Batching for LmdbStore {
    fn pending(&mut self) -> (&mut Vec<Op>, &mut Option<AtomSpace>) {
        (&mut self.pending, &mut self.pending_space)
    }

    fn write_batch(&mut self, space: &AtomSpace, ops: &[Op]) -> Result<()> {
        self.use_space(space);
        self.write(|s, w| {
            // Stores of atoms or values write what the space holds now, which
            // already counts every update of this batch: those updates are not added again.
            let snapshot: hashbrown::HashSet<(Handle, Option<Handle>), foldhash::fast::RandomState> = ops
                .iter()
                .filter_map(|op| match op {
                    Op::Atom(h) => Some((*h, None)),
                    Op::Value(h, k) => Some((*h, Some(*k))),
                    Op::Update(..) => None,
                })
                .collect();
            for op in ops {
                match op {
                    // Atoms (and keys) removed from the space since are not stored.
                    Op::Atom(h) if space.contains(*h) => s.put_atom(w, space, *h, false)?,
                    Op::Value(h, k) if space.contains(*h) && space.contains(*k) && space.get_value(*h, *k).is_none_or(|v| holds_only_live(space, &v)) => {
                        let id = s.id_for(w, space, *h)?;
                        s.put_value(w, space, id, *k, space.get_value(*h, *k).as_ref())?;
                    }
                    Op::Update(h, k, _) if snapshot.contains(&(*h, None)) || snapshot.contains(&(*h, Some(*k))) => {}
                    Op::Update(h, k, delta) if space.contains(*h) && space.contains(*k) => s.apply_update(w, space, *h, *k, delta)?,
                    _ => {}
                }
            }
            Ok(())
        })
    }
}
