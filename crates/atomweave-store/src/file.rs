//! `file:///path.scm`: a store that is an Atomese text file, as upstream's
//! FileStorageNode. Whole spaces are written and read; single atoms are
//! appended. It has no index, so the calls that look atoms up (fetches,
//! deletes) are refused with an error saying so.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};

use std::path::Path;
use std::sync::OnceLock;

use atomweave::sexpr::{self, Form, LoadError, LoadOptions, LoadStats, Place, Select};
use atomweave::{AtomSpace, Handle, Type, Value};

use crate::{Result, StorageNode, StoreError};

/// How a front end with Scheme loads a file: data through the core's
/// reader, the rest through Scheme (`atomweave_guile::load_file`).
pub type SchemeLoader = fn(&AtomSpace, &Path, &mut LoadOptions) -> std::result::Result<LoadStats, LoadError>;

static SCHEME: OnceLock<SchemeLoader> = OnceLock::new();

/// Lets file stores read files that hold Scheme (definitions, module uses)
/// as `atomweave load` does: what the core's reader cannot take is handed
/// to `loader`. Set once per process, by a program that has Scheme (the
/// server, the CLI); without it such a file is refused, saying why.
pub fn set_scheme_loader(loader: SchemeLoader) {
    let _ = SCHEME.set(loader);
}

pub struct FileStore {
    url: String,
    path: String,
    appender: Option<BufWriter<File>>,
}

impl FileStore {
    pub fn open(url: &str, path: &str) -> Result<FileStore> {
        if path.is_empty() || path.ends_with('/') {
            return Err(StoreError::Open { url: url.into(), msg: "name a file: file:///path/to/file.scm".into() });
        }
        Ok(FileStore { url: url.into(), path: path.into(), appender: None })
    }

    fn io(&self, err: std::io::Error) -> StoreError {
        StoreError::Io { path: self.path.clone(), err }
    }

    fn unsupported(&self, what: &str) -> StoreError {
        StoreError::Unsupported(format!("{}: a file store cannot {what}: it has no index (load it into a space, or use an lmdb:// store)", self.url))
    }

    fn append(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        if self.appender.is_none() {
            let f = OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| self.io(e))?;
            self.appender = Some(BufWriter::new(f));
        }
        let line = sexpr::atom_to_string(space, h, Form::Wire)? + "\n";
        let w = self.appender.as_mut().expect("opened");
        w.write_all(line.as_bytes()).map_err(|e| StoreError::Io { path: self.path.clone(), err: e })
    }

    /// Writes the whole space to `tmp`, synced, and renames it over the file.
    fn write_whole(&self, space: &AtomSpace, tmp: &str, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let f = File::create(tmp).map_err(|e| self.io(e))?;
        let mut w = BufWriter::new(f);
        let n = sexpr::dump_space(space, Select::Roots, Form::Wire, &mut w, &mut *progress).map_err(|e| self.io(e))?;
        let f = w.into_inner().map_err(|e| self.io(e.into_error()))?;
        f.sync_all().map_err(|e| self.io(e))?;
        std::fs::rename(tmp, &self.path).map_err(|e| self.io(e))?;
        progress(n);
        Ok(n)
    }

    /// Loads the file; one not written yet is an empty store ([`crate::open`]
    /// makes stores; `open_existing` refuses a missing file first).
    fn load_into(&self, space: &AtomSpace) -> Result<u64> {
        let f = match File::open(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            f => f.map_err(|e| self.io(e))?,
        };
        // The file names the types it holds: their families are enabled.
        let mut options = LoadOptions { enable_families: true, ..LoadOptions::default() };
        let fail = |e: LoadError| StoreError::Backend(format!("{}: {e}", self.path));
        let stats = match SCHEME.get() {
            Some(scheme) => scheme(space, Path::new(&self.path), &mut options),
            None => sexpr::load_from(&mut &*space, BufReader::new(f), Place::START, &mut options, |_| {}),
        };
        stats.map(|s| s.expressions).map_err(fail)
    }
}

impl StorageNode for FileStore {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        self.append(space, h)
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, _key: Handle) -> Result<()> {
        self.store_atom(space, h)
    }

    fn update_value(&mut self, _space: &AtomSpace, _h: Handle, _key: Handle, _delta: &[f64]) -> Result<Value> {
        Err(self.unsupported("update values in place"))
    }

    fn fetch_atom(&mut self, _space: &AtomSpace, _h: Handle) -> Result<bool> {
        Err(self.unsupported("fetch single atoms"))
    }

    fn fetch_value(&mut self, _space: &AtomSpace, _h: Handle, _key: Handle) -> Result<bool> {
        Err(self.unsupported("fetch single values"))
    }

    fn fetch_incoming_set(&mut self, _space: &AtomSpace, _h: Handle, _recursive: bool) -> Result<usize> {
        Err(self.unsupported("fetch incoming sets"))
    }

    fn fetch_incoming_by_type(&mut self, _space: &AtomSpace, _h: Handle, _t: Type) -> Result<usize> {
        Err(self.unsupported("fetch incoming sets"))
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        let scratch = AtomSpace::new();
        self.load_into(&scratch)?;
        let view = scratch.read().expect("a fresh root space");
        let mut text = Vec::new();
        sexpr::dump(&view, Select::Type(t), Form::Wire, &mut text, |_| {}).map_err(|e| self.io(e))?;
        let loaded = sexpr::load_str(&mut &*space, std::str::from_utf8(&text).expect("Atomese is UTF-8")).map_err(|e| StoreError::Backend(e.to_string()))?;
        Ok(loaded.len())
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.barrier()?;
        let n = self.load_into(space)?;
        progress(n);
        Ok(n)
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.appender = None;
        // Written beside the file and renamed over it: a crash leaves the old file or the new, whole.
        let tmp = format!("{}.tmp", self.path);
        let written = self.write_whole(space, &tmp, progress);
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    fn delete(&mut self, _space: &AtomSpace, _h: Handle, _recursive: bool) -> Result<bool> {
        Err(self.unsupported("delete atoms"))
    }

    fn barrier(&mut self) -> Result<()> {
        if let Some(w) = self.appender.as_mut() {
            w.flush().map_err(|e| StoreError::Io { path: self.path.clone(), err: e })?;
            w.get_ref().sync_data().map_err(|e| StoreError::Io { path: self.path.clone(), err: e })?;
        }
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()
    }
}
