//! Upstream's RocksDB stores (`rocks:///dir`): a directory made by
//! atomspace-rocks' RocksStorageNode (or its MonoStorageNode), read and
//! written in its own layout, so that a user's existing data opens as it is.
//!
//! This module is the store's face: [`RocksStore`], opening a directory
//! and checking it is one this code reads, and the [`StorageNode`] calls,
//! each handing the work to the files below. It is not where keys are
//! laid out (`keys.rs`), where atoms and values become text and back
//! (`text.rs`), where they are read (`read.rs`), loaded whole
//! (`load_whole.rs`), written (`write.rs`) or deleted (`delete.rs`).
//!
//! atomweave's own embedded store is LMDB (`lmdb://`): this one is for
//! upstream's data. A directory that holds atomweave's LMDB files is
//! opened as LMDB (see [`crate::open`]). What it does not do: frames
//! (nested AtomSpaces, upstream's `store-frames`): a store holding them is
//! refused when opened, naming them. Nor upstream's alpha-equivalence
//! hash (its C++ code's own): scope links (LambdaLink, GetLink, ...) are
//! found by their text, and new ones written without it.
//!
//! Invariant: a batch of writes is one RocksDB write batch, all or
//! nothing, with the highest id it issued (`*-NextUnusedAID-*`); an atom
//! has one id, found by its text (`n@`, `l@`) before a new one is issued;
//! a link is in its members' incoming index (`i@`); reads change nothing.

use atomweave::{AtomSpace, Handle, Type, Value};
use rocksdb::{Options, DB};

mod delete;
mod keys;
mod load_whole;
mod read;
mod text;
mod write;

use crate::{Batching, IdCache, Op, Result, StorageNode, StoreError};

fn backend(e: rocksdb::Error) -> StoreError {
    StoreError::Backend(format!("rocksdb: {e}"))
}

/// Upstream's names of keys that mark atoms for its own use, not values of
/// the user's: the truth value's key (read as the atom's truth value) and
/// the flags saying an atom is in use as a key or a message.
const IS_KEY_FLAG: &str = "*-IsKeyFlag-*";
const IS_MESSAGE_FLAG: &str = "*-IsMessageFlag-*";

pub struct RocksStore {
    url: String,
    db: DB,
    /// The id the next new atom gets.
    next_aid: u64,
    /// Ids from here on were issued by the batch being written: they have no old values.
    made_from: u64,
    pending: Vec<Op>,
    pending_space: Option<AtomSpace>,
    /// Store ids of atoms of one space, as found or made.
    ids: IdCache,
    /// The id of `(PredicateNode "*-TruthValueKey-*")`, once found or made.
    tv_aid: Option<u64>,
    /// A whole space is being stored into an empty store, one copy of each
    /// content: no atom can be found stored, so none is looked for.
    fresh: bool,
}

impl RocksStore {
    /// Opens the store in directory `path`; with `create`, an empty or
    /// missing directory becomes a new store.
    pub fn open(url: &str, path: &str, create: bool) -> Result<RocksStore> {
        let open_err = |msg: String| StoreError::Open { url: url.to_string(), msg };
        if path.is_empty() {
            return Err(open_err("no directory given: use rocks:///path/to/dir".into()));
        }
        let dir = std::path::Path::new(path);
        let has_files = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
        if has_files && !dir.join("CURRENT").is_file() {
            return Err(open_err("not a RocksDB store: the directory holds files, but not RocksDB's CURRENT".into()));
        }
        if !has_files && !create {
            return Err(open_err("no store there".into()));
        }
        let mut opts = Options::default();
        opts.create_if_missing(create);
        opts.increase_parallelism(std::thread::available_parallelism().map_or(2, |n| n.get() as i32));
        // Each table file is held open: stay below the process's limit, as upstream does.
        opts.set_max_open_files(open_files_allowed());
        let db = DB::open(&opts, dir).map_err(|e| open_err(format!("cannot open: {e}")))?;
        let version = db.get(keys::VERSION_KEY).map_err(backend)?;
        // A new store issues id 1 first, as upstream's does.
        let mut first_aid = None;
        match version.as_deref() {
            Some(v) if keys::VERSIONS.contains(&v) => {}
            Some(v) => {
                return Err(open_err(format!(
                    "the store has version `{}` (its `*-Version-*` key); this atomweave reads upstream's atomspace-rocks versions 1 and 2",
                    String::from_utf8_lossy(v)
                )))
            }
            None if db.iterator(rocksdb::IteratorMode::Start).next().is_some() => {
                return Err(open_err("a RocksDB database, but not an AtomSpace store: it has no `*-Version-*` key".into()));
            }
            None => {
                let mut b = rocksdb::WriteBatch::default();
                b.put(keys::VERSION_KEY, keys::NEW_VERSION);
                b.put(keys::AID_KEY, keys::sid(1));
                db.write(b).map_err(backend)?;
                first_aid = Some(1);
            }
        }
        if let Some((k, _)) = db.prefix_iterator(keys::FRAME_PREFIX).next().transpose().map_err(backend)?.filter(|(k, _)| k.starts_with(keys::FRAME_PREFIX)) {
            return Err(open_err(format!(
                "the store holds frames (nested AtomSpaces, upstream's store-frames; its first: `{}`): atomweave reads and writes RocksDB stores of one AtomSpace; load the frame you need with upstream and store it into a new store",
                text::excerpt(&String::from_utf8_lossy(&k[2..]))
            )));
        }
        let next_aid = match db.get(keys::AID_KEY).map_err(backend)? {
            _ if first_aid.is_some() => 1,
            Some(s) => keys::aid(&s)?.checked_add(1).ok_or_else(|| open_err("a damaged `*-NextUnusedAID-*`".into()))?,
            None => 1,
        };
        Ok(RocksStore {
            url: url.to_string(),
            db,
            next_aid,
            made_from: u64::MAX,
            pending: Vec::new(),
            pending_space: None,
            ids: IdCache::new(0),
            tv_aid: None,
            fresh: false,
        })
    }

    /// Forgets every id learnt: after a failed write, whose ids were not kept.
    fn forget_ids(&mut self) {
        self.ids.clear();
        self.tv_aid = None;
    }
}

/// Upstream's limit on RocksDB's open files: the process's, less 230 for
/// everything else.
fn open_files_allowed() -> i32 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit, which `lim` is.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    let cur = if ok { lim.rlim_cur } else { 1024 };
    i32::try_from(cur.saturating_sub(230).max(64)).unwrap_or(i32::MAX)
}

impl StorageNode for RocksStore {
    database_calls!();

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(aid) = self.lookup(space, h)? else { return Ok(false) };
        self.load_values(space, aid, h)?;
        Ok(true)
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        self.flush()?;
        self.ids.use_space(space);
        self.fetch_one_value(space, h, key)
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        self.load_type(space, t)
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.ids.use_space(space);
        self.load_whole(space, progress)
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.ids.use_space(space);
        self.store_chunks(space, progress)
    }

    fn barrier(&mut self) -> Result<()> {
        self.flush()?;
        self.db.flush_wal(true).map_err(backend)
    }

    fn monitor(&self) -> String {
        let count = |p: &[u8]| self.db.prefix_iterator(p).take_while(|e| e.as_ref().is_ok_and(|(k, _)| k.starts_with(p))).count();
        format!(
            "{}: upstream's RocksDB layout; atoms {} (nodes {}, links {}), values {}, incoming-set entries {}; next atom id {}\n",
            self.url,
            count(b"a@"),
            count(b"n@"),
            count(b"l@"),
            count(b"k@"),
            count(b"i@"),
            self.next_aid
        )
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()
    }
}
