//! Loading files that mix Scheme with Atomese data, so that a file means
//! what it means under upstream's `guile -l FILE`: data (most of any real
//! file) goes through the core's reader at its speed; each expression that
//! reader cannot take (a definition, `use-modules`, `setlocale`, a call of a
//! procedure the file defined, `load`) is read and evaluated by Guile, with
//! the target space current, in file order, and the core's reader goes on
//! after it.
//!
//! Once the file defines a procedure named like an atom type (`(define
//! (Word w) ...)`), Guile reads the rest of it: what looks like data may be
//! a call of that procedure. So it does after a run of data forms that the
//! core's reader refuses at once (data that uses the file's variables).
//!
//! An expression evaluated by Guile is not all-or-nothing: a definition
//! that fails half-way may have added atoms, as it would in Guile. Columns
//! on a line after a form Guile read are counted as Guile counts them (a
//! tab to the next multiple of 8).
//!
//! Guile's port reads invalid UTF-8 as U+FFFD without a word, so before
//! Guile reads anything the rest of the file is checked: each bad place is
//! recorded for a warning, as the core's reader records those it reads, or,
//! in a strict load, the file is refused there before any Scheme runs.

use std::fs::File;
use std::io::{BufReader, Seek};
use std::path::Path;

use atomweave::sexpr::{self, LoadError, LoadOptions, LoadStats, ParseError, Place, Pos};
use atomweave::AtomSpace;

use crate::ffi::{self, Scm};
use crate::{boot, call_shell, initialized, register_space, select_space, with_guile, Shell};

/// Loads `path` into `space` from `start` (the start of the file, or where
/// an earlier strict load stopped), evaluating in Guile what is not data.
/// `progress` gets the bytes read so far. Guile starts (if no one started
/// it) only when the file holds Scheme; the space then stays registered
/// with Scheme for the process's life.
pub fn load_file(space: &AtomSpace, path: &Path, start: Place, options: &mut LoadOptions, mut progress: impl FnMut(u64)) -> Result<LoadStats, LoadError> {
    // Absolute, as `guile -l` has it: a relative `load` in the file is then
    // found beside it.
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(&path).map_err(|e| io_error(start, e))?);
    let mut failed = match read_data(space, &mut reader, start, options, &mut progress) {
        Ok(stats) => return Ok(stats),
        Err(e) => e,
    };
    check_rest(&mut reader, &failed, options)?;
    // In a Guile that loaded the extension itself, its modules are loaded.
    if !initialized() {
        boot(space.clone());
    }
    let index = register_space(space.clone());
    if NESTED_LOADS.get() >= MAX_NESTED_LOADS {
        let why = format!("files' Scheme loads files nested more than {MAX_NESTED_LOADS} deep (does a file load itself?)");
        return Err(as_scheme(&failed, 0, &why));
    }
    with_guile(|| {
        // The caller's current space, and the count of nested loads, come
        // back however the load ends.
        struct Restore(u32);
        impl Drop for Restore {
            fn drop(&mut self) {
                select_space(self.0);
                NESTED_LOADS.set(NESTED_LOADS.get() - 1);
            }
        }
        NESTED_LOADS.set(NESTED_LOADS.get() + 1);
        let _restore = Restore(crate::api::current());
        select_space(index);
        let mut total = LoadStats { expressions: 0, bytes: start.offset };
        let port = Port::open(&path).map_err(|why| as_scheme(&failed, failed.loaded, &why))?;
        let mut refused = 0;
        loop {
            total.expressions += failed.loaded;
            // Data that uses the file's variables: each line is handed back
            // and refused again. After a run of such lines Guile reads on.
            refused = if failed.loaded == 0 { refused + 1 } else { 0 };
            if refused == REFUSED_IN_A_ROW {
                call_shell(Shell::OwnRest, &[port.0]).map_err(|why| as_scheme(&failed, total.expressions, &why))?;
            }
            let at = match port.eval_forms(failed.at) {
                Ok(Forms::Ran(n, next)) if n > 0 => {
                    total.expressions += n;
                    match next {
                        Some(next) => next,
                        None => return Ok(total),
                    }
                }
                Ok(Forms::Ran(..)) => return Err(LoadError { loaded: total.expressions, ..failed }),
                // The form the core's reader stopped at: both readers' complaints.
                Ok(Forms::Failed(0, _, why)) => return Err(as_scheme(&failed, total.expressions, &why)),
                Ok(Forms::Failed(n, at, why)) => {
                    let why = why.trim_end().replace('\n', " ");
                    let error = ParseError { line: at.pos.line, col: at.pos.col, message: format!("evaluating Scheme: {why}"), snippet: String::new() };
                    return Err(LoadError { error, loaded: total.expressions + n, at });
                }
                Err(why) => return Err(as_scheme(&failed, total.expressions, &why)),
            };
            failed = match read_data(space, &mut reader, at, options, &mut progress) {
                Ok(stats) => {
                    total.expressions += stats.expressions;
                    total.bytes = stats.bytes;
                    return Ok(total);
                }
                Err(e) => e,
            };
        }
    })
}

/// Most loads of Scheme files nested in one another (a file whose Scheme
/// loads a file, and so on) on a thread: each level takes kilobytes of the
/// thread's stack, and a file that loads itself would take it all.
const MAX_NESTED_LOADS: usize = 64;

thread_local! {
    static NESTED_LOADS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The core's reader over the file from `at` on. Within what the buffer
/// holds (a Scheme form between data), the seek keeps it.
fn read_data(
    space: &AtomSpace,
    reader: &mut BufReader<File>,
    at: Place,
    options: &mut LoadOptions,
    progress: &mut impl FnMut(u64),
) -> Result<LoadStats, LoadError> {
    let now = reader.stream_position().map_err(|e| unseekable(at, e))?;
    reader.seek_relative(at.offset as i64 - now as i64).map_err(|e| unseekable(at, e))?;
    sexpr::load_from(&mut &*space, reader, at, options, progress)
}

/// Checks the file from where the core's reader stopped to its end for
/// invalid UTF-8, as `options` say (see the module's doc).
fn check_rest(reader: &mut BufReader<File>, failed: &LoadError, options: &mut LoadOptions) -> Result<(), LoadError> {
    reader.seek(std::io::SeekFrom::Start(failed.at.offset)).map_err(|e| unseekable(failed.at, e))?;
    sexpr::scan_utf8(reader, failed.at, options).map_err(|e| LoadError { loaded: failed.loaded, ..e })
}

/// A seek that failed: the file is a pipe.
fn unseekable(at: Place, e: std::io::Error) -> LoadError {
    io_error(at, std::io::Error::new(e.kind(), format!("{e}: a file that holds Scheme is read again from where Scheme starts, so it cannot be a pipe")))
}

fn io_error(at: Place, e: std::io::Error) -> LoadError {
    LoadError { error: ParseError { line: at.pos.line, col: at.pos.col, message: e.to_string(), snippet: String::new() }, loaded: 0, at }
}

/// Makes file stores (`file://`) read Scheme in their files through
/// [`load_file`], as `atomweave load` does. Programs that embed Guile call
/// it at start; loading `(opencog)` into Guile does too.
pub fn install_file_loader() {
    atomweave_store::file::set_scheme_loader(|space, path, options| load_file(space, path, Place::START, options, |_| {}));
}

/// Whether a file's `(exit)` ends the process ([`exit_on_quit`]).
static EXIT_ON_QUIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes a Scheme file's `(exit)` (Guile's `quit`) end the process, its
/// ports flushed, with the status it gives, as `guile -l FILE` does: for a
/// program that runs users' files as Guile would (`atomweave load`).
/// Otherwise (a server, Python) the `quit` stops the file's load, as an
/// error of it: one client's file does not end a process others share.
pub fn exit_on_quit(on: bool) {
    EXIT_ON_QUIT.store(on, std::sync::atomic::Ordering::Relaxed);
}

subrs! {
    exit_on_quit_p "%atomweave-exit-on-quit?" () {
        Ok(if EXIT_ON_QUIT.load(std::sync::atomic::Ordering::Relaxed) { ffi::BOOL_T } else { ffi::BOOL_F })
    }

    data_head "%atomweave-data-head?" (head) {
        let data = ffi::symbol_name(head).is_some_and(|h| {
            matches!(h.as_str(), "cog-set-tv!" | "cog-set-value!" | "cog-set-values!") || atomweave::Type::from_name(&h).is_some_and(|t| t.is_atom())
        });
        Ok(if data { ffi::BOOL_T } else { ffi::BOOL_F })
    }
}

/// The primitive the loader's Scheme half uses: is a form that starts with
/// this symbol data (an atom, or a value set on one)?
pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, ffi::Subr)> {
    vec![("%atomweave-data-head?", 1, 0, 0, data_head as ffi::Subr), ("%atomweave-exit-on-quit?", 0, 0, 0, exit_on_quit_p as ffi::Subr)]
}

/// Expressions Guile hands back that the core's reader refuses at once, in
/// a row, after which Guile reads the rest of the file.
const REFUSED_IN_A_ROW: u32 = 16;

/// The core reader's error for an expression that Guile failed on too.
fn as_scheme(failed: &LoadError, loaded: u64, why: &str) -> LoadError {
    let why = why.trim_end().replace('\n', " ");
    let message = format!("{}; evaluated as Scheme: {why}", failed.error.message);
    LoadError { error: ParseError { message, ..failed.error.clone() }, loaded, at: failed.at }
}

/// The file as a Scheme input port, kept from the collector while it is open.
struct Port(Scm);

impl Port {
    fn open(path: &Path) -> Result<Port, String> {
        let path = path.to_str().ok_or_else(|| format!("{}: not a UTF-8 path", path.display()))?;
        let port = call_shell(Shell::OpenFile, &[ffi::string(path)])?;
        // SAFETY: a port, protected until `drop`.
        Ok(Port(unsafe { ffi::scm_gc_protect_object(port) }))
    }

    /// Reads the form at `at` and evaluates it, then the forms after it up
    /// to the next that is data.
    fn eval_forms(&self, at: Place) -> Result<Forms, String> {
        // SAFETY: cons does not throw.
        let place = unsafe {
            ffi::scm_cons(ffi::from_i64(at.offset as i64), ffi::scm_cons(ffi::from_i64(i64::from(at.pos.line)), ffi::from_i64(i64::from(at.pos.col))))
        };
        let r = call_shell(Shell::LoadForm, &[self.0, place])?;
        let bad = || "Guile gave no place after the form".to_string();
        // SAFETY: (n . #f), (n offset line . col) or (n (offset line . col) . message), from `shell-load-form`.
        unsafe {
            let n = ffi::to_i64(r.car()).ok_or_else(bad)? as u64;
            let rest = r.cdr();
            if rest.is_false() {
                return Ok(Forms::Ran(n, None));
            }
            if let Some(place) = place_of(rest) {
                return Ok(Forms::Ran(n, Some(place)));
            }
            let place = place_of(rest.car()).ok_or_else(bad)?;
            Ok(Forms::Failed(n, place, ffi::to_string(rest.cdr()).unwrap_or_default()))
        }
    }
}

/// What Guile did with the forms from a place on.
enum Forms {
    /// Evaluated this many, up to the data form at the place (or the end).
    Ran(u64, Option<Place>),
    /// Evaluated this many; the next, at the place, failed so.
    Failed(u64, Place, String),
}

/// `(offset line . col)` as a place, if it is one.
///
/// # Safety
/// `x` is a pair.
unsafe fn place_of(x: Scm) -> Option<Place> {
    // SAFETY: checked pairs only.
    unsafe {
        let offset = ffi::to_i64(x.car())?;
        let rest = x.cdr();
        if !rest.is_pair() {
            return None;
        }
        let (line, col) = (ffi::to_i64(rest.car())?, ffi::to_i64(rest.cdr())?);
        Some(Place { offset: offset as u64, pos: Pos { line: line as u32, col: col as u32 } })
    }
}

impl Drop for Port {
    fn drop(&mut self) {
        // SAFETY: in Guile mode (a port lives inside `with_guile`); closing a
        // port does not throw; then it is the collector's again.
        unsafe {
            ffi::scm_close_port(self.0);
            ffi::scm_gc_unprotect_object(self.0);
        }
    }
}
