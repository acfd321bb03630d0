//! Reading Atomese files into a table or space: `load`, `dump` and `query`
//! share it. Data goes through the core's reader into an `AtomTable` (no
//! locks); the first expression that is not data (Scheme: definitions,
//! module uses, calls) moves what was read into an `AtomSpace`, which Guile
//! works on, and the rest of the load evaluates Scheme where the file has
//! it (`atomweave_guile::load_file`), unless `--data-only`.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use atomweave::sexpr::{self, LoadError, LoadOptions, Place};
use atomweave::types::{self, Type};
use atomweave::{AtomSpace, AtomTable};
use indicatif::{ProgressBar, ProgressStyle};

/// How files are read: the options `load`, `dump` and `query` share.
#[derive(clap::Args, Clone, Default)]
pub struct ReadArgs {
    /// Data only: refuse Scheme in the files (definitions, module uses,
    /// calls of procedures) instead of evaluating it with Guile.
    #[arg(long)]
    pub data_only: bool,
    /// Enable the type families of upstream's other modules, comma-separated:
    /// nlp, bio, pln, spacetime, attention, legacy (removed types), or all.
    #[arg(long, value_name = "FAMILY,...", value_delimiter = ',')]
    pub types: Vec<String>,
    /// Declare an unknown type whose name ends in Node or Link as a Node or
    /// a Link (reported on stderr), instead of refusing the file.
    #[arg(long)]
    pub declare_unknown: bool,
    /// Refuse a file that is not valid UTF-8, naming the first bad place.
    /// Without it each bad byte sequence is read as U+FFFD (as Guile reads
    /// it) and its place reported on stderr.
    #[arg(long)]
    pub strict: bool,
}

impl ReadArgs {
    /// Enables the families asked for.
    pub fn enable_types(&self) -> Result<(), String> {
        for f in &self.types {
            if f == "all" {
                for f in types::families() {
                    types::load_family(f).map_err(|e| e.to_string())?;
                }
            } else {
                types::load_family(f).map_err(|e| format!("--types: {e}"))?;
            }
        }
        Ok(())
    }
}

/// Where files are read into.
pub enum Target {
    /// The fast start, while the files hold only data.
    Table(Box<AtomTable>),
    /// Once Guile is needed (or when the caller wants a space).
    Space(AtomSpace),
}

impl Target {
    /// The space, moving the table's atoms into one first.
    fn space(&mut self) -> &AtomSpace {
        if let Target::Table(t) = self {
            *self = Target::Space(AtomSpace::from(*std::mem::take(t)));
        }
        match self {
            Target::Space(s) => s,
            Target::Table(_) => unreachable!("moved into a space above"),
        }
    }

    /// The atoms read, as a space.
    pub fn into_space(mut self) -> AtomSpace {
        self.space().clone()
    }
}

/// Reads files in order, with a progress bar on stderr unless `quiet`; how
/// many top-level expressions they held. A bad expression fails the whole
/// command, which then keeps nothing: the error says so.
pub fn load_files(target: &mut Target, files: &[PathBuf], quiet: bool, args: &ReadArgs) -> Result<u64, String> {
    load_files_with(target, files, quiet, args, false)
}

/// [`load_files`], reading and adding on one thread when `one_thread`.
pub fn load_files_with(target: &mut Target, files: &[PathBuf], quiet: bool, args: &ReadArgs, one_thread: bool) -> Result<u64, String> {
    args.enable_types()?;
    let mut options = LoadOptions { declare_unknown: args.declare_unknown, strict: args.strict, one_thread, ..LoadOptions::default() };
    let mut expressions = 0;
    for (done, path) in files.iter().enumerate() {
        let loaded = load_file(target, path, quiet, args.data_only, &mut options).map_err(|e| {
            let before = match done {
                0 => String::new(),
                _ => format!(", nor the {expressions} of the {done} file(s) before it ({})", names(&files[..done])),
            };
            let mut message = e.error.to_string();
            if args.data_only && message.contains("is Scheme, not Atomese data") {
                message.push_str(" (or leave out --data-only: then `atomweave load` evaluates it)");
            }
            format!("{}: {message}; nothing was loaded: not the {} expressions before it in this file{before}", path.display(), e.loaded)
        })?;
        options.invalid_utf8.report(&path.display().to_string());
        expressions += loaded;
    }
    if !options.declared.is_empty() {
        let list: Vec<String> = options.declared.iter().map(|t: &Type| format!("{t} ({})", if t.is_node() { "Node" } else { "Link" })).collect();
        eprintln!("atomweave: declared {} unknown type(s): {}", list.len(), list.join(", "));
    }
    Ok(expressions)
}

fn names(files: &[PathBuf]) -> String {
    files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// One file: the core's reader first; where it stops, unless `data_only`,
/// Guile goes on from that expression.
fn load_file(target: &mut Target, path: &Path, quiet: bool, data_only: bool, options: &mut LoadOptions) -> Result<u64, LoadError> {
    let io = |e: std::io::Error| LoadError {
        error: sexpr::ParseError { line: 1, col: 1, message: e.to_string(), snippet: String::new() },
        loaded: 0,
        at: Place::START,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = if quiet || len < 1 << 20 { ProgressBar::hidden() } else { ProgressBar::new(len) };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}").expect("valid template").progress_chars("=> "),
    );
    bar.set_message(path.display().to_string());
    let progress = |bytes| bar.set_position(bytes);
    let reader = BufReader::with_capacity(1 << 16, file);
    let by_core = match target {
        Target::Table(t) => sexpr::load_from(&mut **t, reader, Place::START, options, progress),
        Target::Space(s) if data_only => sexpr::load_from(&mut &*s, reader, Place::START, options, progress),
        // Guile starts only if the file holds Scheme.
        Target::Space(s) => atomweave_guile::load_file(s, path, Place::START, options, progress),
    };
    let result = match by_core {
        Err(e) if !data_only && matches!(target, Target::Table(_)) => {
            let before = e.loaded;
            atomweave_guile::load_file(target.space(), path, e.at, options, progress)
                .map(|s| before + s.expressions)
                .map_err(|e| LoadError { loaded: before + e.loaded, ..e })
        }
        other => other.map(|s| s.expressions),
    };
    finish(&bar, result)
}

fn finish<T>(bar: &ProgressBar, result: T) -> T {
    bar.finish_and_clear();
    result
}
