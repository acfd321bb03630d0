//! `file:///path.scm`: a store that is an Atomese text file, as upstream's
//! FileStorageNode. Whole spaces are written and read; single atoms are
//! appended. It has no index, so the calls that look atoms up (fetches,
//! deletes) are refused with an error saying so.
//!
//! `store_atom` and `store_value` append upstream's commands, as the
//! `cog://` client sends them (`(cog-set-values! A (alist ...))`,
//! `(cog-set-value! A KEY V)`): loading replays them in order. A truth
//! value reset since an earlier line is reset again by either call; a
//! value removed since is removed again where `store_value` stored the
//! removal (`#f`), as a whole atom's line names only the values it has.
//!
//! `file:///path.scm?strict` refuses a file that is not valid UTF-8 at its
//! first bad place, before anything of it is loaded (the core's
//! `LoadOptions::strict`); without it, each bad place is read as U+FFFD and
//! reported on stderr. A `?` in the path always starts these options.
//!
//! Appended lines wait in the store's buffer until it fills or a barrier.
//! A write that fails (a full disk) is cut back to the last whole line and
//! its lines stay buffered, for the next write to try again: the file
//! never holds half a line, and a barrier that returns Ok has every line.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};

use std::path::Path;
use std::sync::OnceLock;

use atomweave::sexpr::{self, Form, LoadError, LoadOptions, LoadStats, Place, Select};
use atomweave::{AtomSpace, Handle, Type, Value};

use crate::{wire, Result, StorageNode, StoreError};

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
    /// `?strict`: refuse invalid UTF-8.
    strict: bool,
    appender: Option<Appender>,
}

/// Bytes of appended lines held before they are written.
const APPEND_BUFFER: usize = 1 << 16;

/// The file opened for appending, with the lines not yet in it.
struct Appender {
    file: File,
    /// The file's length up to its last whole line written here.
    whole: u64,
    lines: Vec<u8>,
    /// Set when a part line could not be cut off again: appending after
    /// it would join two lines, so nothing more is appended.
    broken: Option<String>,
}

/// A file store's path without its options, and the options (`strict`).
pub(crate) fn split_options(path: &str) -> (&str, Option<&str>) {
    match path.split_once('?') {
        Some((path, options)) => (path, Some(options)),
        None => (path, None),
    }
}

impl FileStore {
    pub fn open(url: &str, path: &str) -> Result<FileStore> {
        let (path, options) = split_options(path);
        let strict = match options {
            None => false,
            Some("strict") => true,
            Some(other) => {
                let msg = format!(
                    "unknown option `{other}`: a file store takes `?strict` (refuse a file that is not valid UTF-8); a `?` in a path starts its options"
                );
                return Err(StoreError::Open { url: url.into(), msg });
            }
        };
        if path.is_empty() || path.ends_with('/') {
            return Err(StoreError::Open { url: url.into(), msg: "name a file: file:///path/to/file.scm".into() });
        }
        // A FIFO or socket would block the first read or write until another
        // process opened its other end; a directory holds no atoms.
        if let Ok(meta) = std::fs::metadata(path) {
            use std::os::unix::fs::FileTypeExt;
            let kind = meta.file_type();
            if kind.is_fifo() || kind.is_socket() || kind.is_dir() {
                return Err(StoreError::Open { url: url.into(), msg: "not a file a store can be kept in (a FIFO, socket or directory)".into() });
            }
        }
        Ok(FileStore { url: url.into(), path: path.into(), strict, appender: None })
    }

    fn io(&self, err: std::io::Error) -> StoreError {
        StoreError::Io { path: self.path.clone(), err }
    }

    fn unsupported(&self, what: &str) -> StoreError {
        StoreError::Unsupported(format!("{}: a file store cannot {what}: it has no index (load it into a space, or use an lmdb:// store)", self.url))
    }

    fn append(&mut self, line: &str) -> Result<()> {
        if self.appender.is_none() {
            let file = OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| self.io(e))?;
            let whole = file.metadata().map_err(|e| self.io(e))?.len();
            self.appender = Some(Appender { file, whole, lines: Vec::new(), broken: None });
        }
        let a = self.appender.as_mut().expect("opened above");
        if a.broken.is_some() || a.lines.len() >= APPEND_BUFFER {
            self.write_lines()?;
        }
        let a = self.appender.as_mut().expect("opened above");
        a.lines.extend_from_slice(line.as_bytes());
        a.lines.push(b'\n');
        Ok(())
    }

    /// Writes the buffered lines. On an error, what part of them reached
    /// the file is cut off again and they all stay buffered.
    fn write_lines(&mut self) -> Result<()> {
        let Some(a) = self.appender.as_mut() else { return Ok(()) };
        if let Some(why) = &a.broken {
            return Err(StoreError::Backend(why.clone()));
        }
        if a.lines.is_empty() {
            return Ok(());
        }
        match a.file.write_all(&a.lines) {
            Ok(()) => {
                a.whole += a.lines.len() as u64;
                a.lines.clear();
                Ok(())
            }
            Err(e) => {
                let cut = a.file.set_len(a.whole);
                let path = self.path.clone();
                match cut {
                    Ok(()) => Err(StoreError::Io { path, err: e }),
                    Err(cut) => {
                        let why = format!(
                            "{path}: a write failed ({e}) and its part line could not be cut off ({cut}); nothing more is appended: store the whole space"
                        );
                        a.broken = Some(why.clone());
                        Err(StoreError::Backend(why))
                    }
                }
            }
        }
    }

    /// Writes the whole space to a new file beside this one, synced, and
    /// renames it over this one; the directory is synced after, so the
    /// rename lasts too.
    fn write_whole(&self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        let path = Path::new(&self.path);
        // The rename would put a regular file in a device's place.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(StoreError::Unsupported(format!("{}: not a regular file: a whole space is not written over it", self.path)));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // Readable as a file `File::create` makes (0666 less the umask), not only by its owner.
        let tmp = tempfile::Builder::new()
            .suffix(".tmp")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| self.io(e))?;
        let mut w = BufWriter::new(tmp);
        let n = sexpr::dump_space(space, Select::Roots, Form::Wire, &mut w, &mut *progress).map_err(|e| self.io(e))?;
        let tmp = w.into_inner().map_err(|e| self.io(e.into_error()))?;
        tmp.as_file().sync_all().map_err(|e| self.io(e))?;
        tmp.persist(path).map_err(|e| self.io(e.error))?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(|e| self.io(e))?;
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
        let mut options = LoadOptions { enable_families: true, strict: self.strict, ..LoadOptions::default() };
        let fail = |e: LoadError| StoreError::Backend(format!("{}: {e}", self.path));
        sexpr::refuse_invalid_utf8(Path::new(&self.path), &mut options).map_err(fail)?;
        let stats = match SCHEME.get() {
            Some(scheme) => scheme(space, Path::new(&self.path), &mut options),
            None => sexpr::load_from(&mut &*space, BufReader::new(f), Place::START, &mut options, |_| {}),
        };
        options.invalid_utf8.report(&self.path);
        stats.map(|s| s.expressions).map_err(fail)
    }
}

impl Drop for FileStore {
    /// Dropped unclosed (an error path): the buffered lines still go out.
    fn drop(&mut self) {
        let _ = self.write_lines();
    }
}

impl StorageNode for FileStore {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        self.append(&wire::store_atom(space, h)?)
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.append(&wire::store_value(space, h, key)?)
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
        // Written beside the file and renamed over it: a crash leaves the
        // old file or the new, whole (a failed write's file is removed).
        let written = self.write_whole(space, progress)?;
        // The lines appended before are in the space written, or were
        // removed from it since.
        self.appender = None;
        Ok(written)
    }

    fn delete(&mut self, _space: &AtomSpace, _h: Handle, _recursive: bool) -> Result<bool> {
        Err(self.unsupported("delete atoms"))
    }

    fn barrier(&mut self) -> Result<()> {
        self.write_lines()?;
        if let Some(a) = &self.appender {
            a.file.sync_data().map_err(|e| self.io(e))?;
        }
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.barrier()
    }
}
