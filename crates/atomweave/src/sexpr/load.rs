//! Turns parsed Atomese expressions into atoms.
//!
//! Each top-level expression is checked whole (types known, shapes right)
//! before anything of it is added, so a bad expression adds nothing and the
//! atoms of earlier expressions stay: [`eval`] by a dry run, the streaming
//! [`load_from`] by recording expressions a batch at a time (`recorder`), which
//! it adds while a second thread reads the next batch.

use std::io::BufRead;
use std::sync::atomic::Ordering;

use super::parse::{Expr, ParseError, Parser, Place, Pos, MAX_NESTING};

use super::data_reader;
use super::recorder::{Batch, Recorder};
use super::utf8::InvalidUtf8;
use crate::sink::AtomSink;
use crate::table::NodeFinder;
use crate::types::{self, Type};
use crate::value::{AV_KEY, TV_KEY};
use crate::{AtomSpace, Handle, TruthValue, Value, MAX_VALUE_NESTING};

/// The atoms of the truth- and attention-value keys, where `get_node`
/// finds them: not the user's atoms (upstream holds them in no space), so
/// dumps, root lists and query groundings leave them out.
pub fn value_key_atoms(get_node: impl Fn(Type, &str) -> Option<Handle>) -> Vec<Handle> {
    [TV_KEY, AV_KEY].into_iter().filter_map(|k| get_node(types::PREDICATE_NODE, k)).collect()
}

/// Scheme's forms and the procedures data files call most (a preamble, a
/// loader's helpers): met where an atom should be, the file is a program.
const SCHEME_FORMS: &[&str] = &[
    "define",
    "define-public",
    "define-module",
    "use-modules",
    "load",
    "primitive-load",
    "setlocale",
    "let",
    "let*",
    "letrec",
    "lambda",
    "begin",
    "set!",
    "if",
    "cond",
    "when",
    "unless",
    "display",
    "newline",
    "for-each",
    "map",
    "do",
    "import",
    "include",
    "cog-new-node",
    "cog-new-link",
    "cog-set-tv!",
    "cog-set-value!",
];

/// What a load did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LoadStats {
    /// Top-level expressions loaded.
    pub expressions: u64,
    /// Bytes of input read.
    pub bytes: u64,
}

/// A load that stopped at a bad expression. Everything before it was added,
/// nothing of it or after it. (Where the sink refuses a write, a read-only
/// space or one out of room, the error is at the first expression of the
/// batch being added, and says so; in a space out of room, atoms of that
/// batch may have been added.)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{error}; the {loaded} expressions before it were loaded, nothing from line {} on", error.line)]
pub struct LoadError {
    /// What was wrong, and where.
    pub error: ParseError,
    /// Top-level expressions loaded before it.
    pub loaded: u64,
    /// Where the bad expression's text begins: just past the expression
    /// before it (the whitespace and comments between are read again), what
    /// a caller that reads it some other way (as Scheme) resumes from.
    pub at: Place,
}

/// How a load treats what it does not know.
#[derive(Debug, Default, Clone)]
pub struct LoadOptions {
    /// Enable the type family of an unknown type that one declares: what a
    /// store's own files do, whose type names are the record of the types
    /// they hold.
    pub enable_families: bool,
    /// Declare an unknown type named `...Node` or `...Link` as a Node or a
    /// Link (`--declare-unknown`), instead of refusing it.
    pub declare_unknown: bool,
    /// The types declared so, in the order met.
    pub declared: Vec<Type>,
    /// Refuse invalid UTF-8 (`--strict`): the load stops with an error at
    /// the first bad sequence, as at a bad expression. Otherwise each is
    /// read as U+FFFD, as Guile reads it, and recorded in `invalid_utf8`.
    pub strict: bool,
    /// Where the load read invalid UTF-8 as U+FFFD, for the caller to
    /// report ([`InvalidUtf8::report`]).
    pub invalid_utf8: InvalidUtf8,
    /// Read and add on the calling thread alone, no second thread reading
    /// ahead (`--threads 1`).
    pub one_thread: bool,
    /// Read every expression through the general reader, without the fast
    /// path for plain data (`data_reader`): for tests that hold the two to the
    /// same result.
    #[doc(hidden)]
    pub general_reader: bool,
}

/// Loads Atomese text from a reader, one top-level expression at a time.
/// `progress` is called with the bytes read so far, about every 256 KiB.
pub fn load<S: AtomSink, R: BufRead + Send>(sink: &mut S, input: R, progress: impl FnMut(u64)) -> Result<LoadStats, LoadError> {
    load_from(sink, input, Place::START, &mut LoadOptions::default(), progress)
}

/// Atoms recorded per batch (about): enough that a batch's cache misses
/// overlap and hand-offs between the threads are rare, few enough that a
/// space's shard locks are held briefly.
const BATCH_ATOMS: usize = 8192;

/// When the reading thread looks a batch's nodes up in the table.
#[derive(Clone, Copy)]
enum LookUps {
    /// While the adding thread has a batch waiting: the lookups go to
    /// whichever thread has time for them (each thread's share of the work
    /// differs with the machine and the file).
    WhileBehind,
    /// For every batch (tests: every node met again is then found).
    #[cfg(test)]
    Always,
}

/// [`load`] of input that starts at `start` of a larger text (offsets and
/// positions count from there), as `options` say.
///
/// The expressions are read and checked a batch at a time (see `recorder`),
/// and each batch is added whole; past the first batch, a second thread
/// reads the next while this one adds (a short load starts no thread, nor
/// does one with `options.one_thread`).
/// Each top-level expression is still all or nothing: one that fails adds
/// nothing, and the ones before it are added.
pub fn load_from<S: AtomSink, R: BufRead + Send>(
    sink: &mut S,
    input: R,
    start: Place,
    options: &mut LoadOptions,
    progress: impl FnMut(u64),
) -> Result<LoadStats, LoadError> {
    // Into a table, the reading thread also looks the nodes of each batch
    // up in it (without a lock) while the adding thread adds.
    if !options.one_thread {
        if let Some(table) = sink.as_table(crate::sink::Sealed(())) {
            let (mut writer, finder) = table.writer_and_finder();
            return load_on(&mut writer, Some((finder, LookUps::WhileBehind)), input, start, options, progress);
        }
    }
    load_on(sink, None, input, start, options, progress)
}

/// [`load_from`] into `sink`, with the `finder` of its nodes if it has one.
fn load_on<S: AtomSink, R: BufRead + Send>(
    sink: &mut S,
    finder: Option<(NodeFinder, LookUps)>,
    input: R,
    start: Place,
    options: &mut LoadOptions,
    mut progress: impl FnMut(u64),
) -> Result<LoadStats, LoadError> {
    let mut parser = Parser::resume(input, start);
    if !options.strict {
        parser = parser.read_invalid_utf8();
    }
    let mut stats = LoadStats { expressions: 0, bytes: start.offset };
    // Whether more follows the batch.
    let mut add = |read: &mut Read, stats: &mut LoadStats| -> Result<bool, LoadError> {
        let loaded = stats.expressions;
        read.batch.apply(sink).map_err(|e| {
            let message = format!("{e} (adding the batch of {} expressions that starts here)", read.expressions);
            LoadError { error: error(read.start.pos, message, ""), loaded, at: read.start }
        })?;
        stats.expressions += read.expressions;
        if read.bytes >> 18 != stats.bytes >> 18 {
            progress(read.bytes);
        }
        stats.bytes = read.bytes;
        match std::mem::replace(&mut read.end, End::More) {
            End::More => Ok(true),
            End::Done => Ok(false),
            End::Failed(error, at) => Err(LoadError { error, loaded: stats.expressions, at }),
        }
    };
    let mut read = read_batch(&mut parser, options, Batch::default());
    if !add(&mut read, &mut stats)? {
        return Ok(stats);
    }
    if options.one_thread {
        loop {
            read = read_batch(&mut parser, options, read.batch);
            if !add(&mut read, &mut stats)? {
                return Ok(stats);
            }
        }
    }
    // Batches sent and not yet taken (`LookUps::WhileBehind`).
    let waiting = &std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (batches, received) = std::sync::mpsc::sync_channel(16);
        // Applied batches go back to the reading thread to be filled again.
        let (give_back, spares) = std::sync::mpsc::channel::<Batch>();
        give_back.send(read.batch).expect("the receiver is here");
        scope.spawn(move || loop {
            let mut read = read_batch(&mut parser, options, spares.try_recv().unwrap_or_default());
            match finder {
                Some((finder, LookUps::WhileBehind)) if waiting.load(Ordering::Relaxed) > 0 => read.batch.find_known(finder),
                #[cfg(test)]
                Some((finder, LookUps::Always)) => read.batch.find_known(finder),
                _ => {}
            }
            let more = matches!(read.end, End::More);
            waiting.fetch_add(1, Ordering::Relaxed);
            // A send fails once the adding side has stopped at an error.
            if batches.send(read).is_err() || !more {
                break;
            }
        });
        for mut read in received {
            waiting.fetch_sub(1, Ordering::Relaxed);
            let more = add(&mut read, &mut stats)?;
            if !more {
                break;
            }
            // The reader may have ended meanwhile: then the batch is dropped here.
            let _ = give_back.send(read.batch);
        }
        Ok(stats)
    })
}

/// A batch of expressions read and recorded, and how reading ended.
struct Read {
    batch: Batch,
    expressions: u64,
    /// Where the batch's text begins.
    start: Place,
    /// Bytes read when it ended.
    bytes: u64,
    end: End,
}

enum End {
    More,
    Done,
    /// At the expression that begins at the place.
    Failed(ParseError, Place),
}

/// Reads and records expressions into `batch` (emptied first) until it
/// is full or the input ends.
fn read_batch<R: BufRead>(parser: &mut Parser<R>, options: &mut LoadOptions, mut batch: Batch) -> Read {
    batch.clear();
    let (start, mut expressions) = (parser.place(), 0);
    let end = loop {
        if batch.atoms() >= BATCH_ATOMS {
            break End::More;
        }
        if !options.general_reader && parser.scan_next(|text| data_reader::record(&mut batch, text)).is_some() {
            expressions += 1;
            continue;
        }
        let at = parser.place();
        let expr = match parser.next_expr() {
            Ok(Some(e)) => e,
            Ok(None) => break End::Done,
            Err(error) => break End::Failed(error, at),
        };
        if let Err(error) = record(&mut batch, &expr, options) {
            break End::Failed(error, at);
        }
        expressions += 1;
    };
    for bad in parser.take_bad() {
        options.invalid_utf8.record(bad);
    }
    Read { batch, expressions, start, bytes: parser.bytes_read(), end }
}

/// Records one top-level expression whole, or nothing of it; an unknown
/// type that `options` can make known is made known and the expression
/// tried again.
fn record(batch: &mut Batch, expr: &Expr, options: &mut LoadOptions) -> Result<(), ParseError> {
    let mark = batch.mark();
    let once = |batch: &mut Batch| {
        let done = Builder { sink: &mut Recorder(batch), depth: 0, value_depth: 0, lookup: false }.top(expr).map(drop);
        if done.is_err() {
            batch.truncate(mark);
        }
        done
    };
    match once(batch) {
        Err(error) if !resolve_unknown(expr, options) => Err(error),
        Err(_) => once(batch),
        ok => ok,
    }
}

/// Makes known the unknown types `expr` names as heads, as `options` allow:
/// by enabling their family, or by declaring a name that ends in `Node` or
/// `Link` a Node or a Link (added to `declared`). Whether it made any known.
/// A walk with a stack: expressions nest up to `MAX_NESTING`.
fn resolve_unknown(expr: &Expr, options: &mut LoadOptions) -> bool {
    // Names in Scheme code (a procedure's name and parameters) are not types.
    if (!options.enable_families && !options.declare_unknown) || head(expr).is_some_and(|(h, _, _)| SCHEME_FORMS.contains(&h)) {
        return false;
    }
    let mut made = false;
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        let Expr::List(items, _) = e else { continue };
        if let Some(Expr::Symbol(name, _)) = items.first() {
            if Type::from_name(name).is_none() {
                // A family's type is never declared as something else: with
                // either option its family is enabled.
                if let Some(f) = types::family_of(name) {
                    made |= types::load_family(f).is_ok();
                } else if options.declare_unknown {
                    if let Ok(t) = types::declare_by_suffix(name) {
                        options.declared.push(t);
                        made = true;
                    }
                }
            }
        }
        stack.extend(items);
    }
    made
}

/// Loads Atomese text from a string and returns the atom of each top-level expression.
pub fn load_str<S: AtomSink>(sink: &mut S, text: &str) -> Result<Vec<Handle>, LoadError> {
    let mut parser = Parser::new(text.as_bytes());
    let mut out = Vec::new();
    loop {
        let at = parser.place();
        match parser.next_expr() {
            Ok(Some(e)) => out.push(eval(sink, &e).map_err(|error| LoadError { error, loaded: out.len() as u64, at })?),
            Ok(None) => return Ok(out),
            Err(error) => return Err(LoadError { error, loaded: out.len() as u64, at }),
        }
    }
}

/// Adds the atoms of one top-level expression (an atom, or `cog-set-tv!`,
/// `cog-set-value!`, `cog-set-values!` applied to one) and returns its atom.
pub fn eval<S: AtomSink>(sink: &mut S, expr: &Expr) -> Result<Handle, ParseError> {
    Builder { sink: &mut DryRun, depth: 0, value_depth: 0, lookup: false }.top(expr)?;
    Builder { sink, depth: 0, value_depth: 0, lookup: false }.top(expr)
}

/// Reads one value expression (`(FloatValue 1 2)`, `(stv 0.5 0.8)`,
/// `(LinkValue (Concept "a") (StringValue "b"))`, an atom) and adds the
/// atoms it holds: for stores that keep values as Atomese text.
pub fn eval_value<S: AtomSink>(sink: &mut S, expr: &Expr) -> Result<Value, ParseError> {
    Builder { sink: &mut DryRun, depth: 0, value_depth: 0, lookup: false }.value(expr)?;
    Builder { sink, depth: 0, value_depth: 0, lookup: false }.value(expr)
}

/// Checks one top-level expression as [`eval`] would, adding nothing: for
/// callers that must check several before they add any.
pub fn check(expr: &Expr) -> Result<(), ParseError> {
    Builder { sink: &mut DryRun, depth: 0, value_depth: 0, lookup: false }.top(expr).map(drop)
}

/// The atom one expression names, if `space` holds it, adding nothing:
/// asking about an atom does not create it. A malformed expression is an
/// error; values written inside it are checked, and ignored.
pub fn lookup(space: &AtomSpace, expr: &Expr) -> Result<Option<Handle>, ParseError> {
    Builder { sink: &mut DryRun, depth: 0, value_depth: 0, lookup: false }.atom(expr)?;
    Ok(Builder { sink: &mut Lookup(space), depth: 0, value_depth: 0, lookup: true }.atom(expr).ok())
}

/// Does this expression write the truth-value key (see
/// [`AtomSource::is_tv_key`](crate::sexpr::AtomSource::is_tv_key))? It
/// stands for the atom's truth value, whether or not the key is an atom of
/// any space.
pub fn is_tv_key_expr(e: &Expr) -> bool {
    matches!(head(e), Some((kt, [Expr::Str(kn, _), ..], _)) if kn == TV_KEY && Type::from_name(kt) == Some(types::PREDICATE_NODE))
}

/// A sink that finds instead of adding: a missing atom fails the build.
struct Lookup<'a>(&'a AtomSpace);

impl AtomSink for Lookup<'_> {
    fn add_node(&mut self, t: Type, name: &str) -> crate::Result<Handle> {
        self.0.get_node(t, name).ok_or_else(|| crate::Error::InvalidValue("absent".into()))
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> crate::Result<Handle> {
        self.0.get_link(t, out).ok_or_else(|| crate::Error::InvalidValue("absent".into()))
    }
    fn set_tv(&mut self, _: Handle, _: TruthValue) -> crate::Result<()> {
        Ok(())
    }
    fn set_value(&mut self, _: Handle, _: Handle, _: Value) -> crate::Result<()> {
        Ok(())
    }
    fn remove_value(&mut self, _: Handle, _: Handle) -> crate::Result<()> {
        Ok(())
    }
    fn contains(&self, h: Handle) -> bool {
        self.0.contains(h)
    }
}

/// A sink that adds nothing: the first, checking pass of [`eval`] (and
/// of other readers that must not add part of a bad text).
pub(crate) struct DryRun;

impl AtomSink for DryRun {
    fn add_node(&mut self, _: Type, _: &str) -> crate::Result<Handle> {
        Ok(Handle(0))
    }
    fn add_link(&mut self, _: Type, _: &[Handle]) -> crate::Result<Handle> {
        Ok(Handle(0))
    }
    fn set_tv(&mut self, _: Handle, _: TruthValue) -> crate::Result<()> {
        Ok(())
    }
    fn set_value(&mut self, _: Handle, _: Handle, _: Value) -> crate::Result<()> {
        Ok(())
    }
    fn remove_value(&mut self, _: Handle, _: Handle) -> crate::Result<()> {
        Ok(())
    }
    fn contains(&self, _: Handle) -> bool {
        true
    }
}

fn error(pos: Pos, message: impl Into<String>, snippet: impl Into<String>) -> ParseError {
    ParseError { line: pos.line, col: pos.col, message: message.into(), snippet: snippet.into() }
}

/// A short rendering of an expression for error messages.
fn show(e: &Expr) -> String {
    let mut s = match e {
        Expr::List(items, _) => match items.first() {
            Some(Expr::Symbol(h, _)) => format!("({h} ...)"),
            _ => "(...)".to_string(),
        },
        Expr::Symbol(s, _) => s.clone(),
        Expr::Str(s, _) => format!("{s:?}"),
        Expr::Number(n, _) => super::write::fmt_f64(*n),
        Expr::Quote(q, _) => format!("'{}", show(q)),
    };
    if let Some((cut, _)) = s.char_indices().nth(60) {
        s.truncate(cut);
    }
    s
}

fn head(e: &Expr) -> Option<(&str, &[Expr], Pos)> {
    match e {
        Expr::List(items, pos) => match items.split_first() {
            Some((Expr::Symbol(h, _), rest)) => Some((h.as_str(), rest, *pos)),
            _ => None,
        },
        _ => None,
    }
}

fn number(e: &Expr) -> Result<f64, ParseError> {
    match e {
        Expr::Number(n, _) => Ok(*n),
        other => Err(error(other.pos(), "expected a number", show(other))),
    }
}

fn numbers<const N: usize>(args: &[Expr], pos: Pos, what: &str) -> Result<[f64; N], ParseError> {
    if args.len() != N {
        return Err(error(pos, format!("{what} takes {N} numbers, found {}", args.len()), what));
    }
    let mut out = [0.0; N];
    for (o, a) in out.iter_mut().zip(args) {
        *o = number(a)?;
    }
    Ok(out)
}

/// The atom type `name` names, or an error that says why it is none.
/// Kept out of `Builder::atom`, whose frame is on the stack once per level
/// of nesting.
#[inline(never)]
fn atom_type(name: &str, pos: Pos) -> Result<Type, ParseError> {
    match Type::from_name(name) {
        Some(t) if t.is_atom() => Ok(t),
        Some(t) => Err(error(pos, format!("{t} is a value type, not an atom type"), name)),
        None if SCHEME_FORMS.contains(&name) => {
            let message = format!("`{name}` is Scheme, not Atomese data: this reader takes atoms and values only; run a file that holds Scheme with Guile and the (opencog) module (`guile -l FILE`)");
            Err(error(pos, message, name))
        }
        None => {
            let message = match types::family_of(name) {
                Some(f) => format!("unknown atom type `{name}`: it is in the `{f}` type family, which is not enabled (`--types {f}` on the command line, `load_types(\"{f}\")` in Python, its module in Scheme)"),
                None => format!("unknown atom type `{name}`"),
            };
            Err(error(pos, message, name))
        }
    }
}

/// Is this the head of a value attached to an atom inside its expression?
pub(super) fn is_attached_value(h: &str) -> bool {
    matches!(h, "stv" | "ctv" | "av" | "alist" | "cog-new-stv" | "cog-new-ctv" | "SimpleTruthValue" | "CountTruthValue")
}

struct Builder<'s, S> {
    sink: &'s mut S,
    depth: usize,
    value_depth: usize,
    /// Looking atoms up: values written inside them are checked, not set.
    lookup: bool,
}

impl<S: AtomSink> Builder<'_, S> {
    fn sink_err(&self, pos: Pos, e: crate::Error) -> ParseError {
        error(pos, e.to_string(), "")
    }

    fn top(&mut self, e: &Expr) -> Result<Handle, ParseError> {
        if let Some((h, args, pos)) = head(e) {
            match h {
                "cog-set-tv!" => {
                    let [atom, tv] = args else {
                        return Err(error(pos, "cog-set-tv! takes an atom and a truth value", h));
                    };
                    let a = self.atom(atom)?;
                    let tv = self.truth(tv)?;
                    self.sink.set_tv(a, tv).map_err(|e| self.sink_err(pos, e))?;
                    return Ok(a);
                }
                "cog-set-value!" => {
                    let [atom, key, value] = args else {
                        return Err(error(pos, "cog-set-value! takes an atom, a key and a value (#f removes it)", h));
                    };
                    let a = self.atom(atom)?;
                    match value {
                        Expr::Symbol(f, _) if f == "#f" => self.remove_value(a, key)?,
                        _ => self.key_value(a, key, value)?,
                    }
                    return Ok(a);
                }
                "cog-set-values!" => {
                    let [atom, alist] = args else {
                        return Err(error(pos, "cog-set-values! takes an atom and an alist", h));
                    };
                    let a = self.atom(atom)?;
                    self.attached(a, alist)?;
                    return Ok(a);
                }
                _ => {}
            }
        }
        self.atom(e)
    }

    fn atom(&mut self, e: &Expr) -> Result<Handle, ParseError> {
        let Some((name, args, pos)) = head(e) else {
            let text = show(e);
            // A terminal's colour codes or a shell prompt: a session was saved, not data.
            let transcript = text.contains('\u{1b}') || ["scm>", "guile>", "opencog>", "json>"].iter().any(|p| text.trim_start_matches('\'').starts_with(p));
            let message = if transcript {
                "expected an atom such as (ConceptNode \"name\"); this looks like a REPL transcript (a prompt or terminal colour codes): save the atoms, not the session"
            } else {
                "expected an atom such as (ConceptNode \"name\")"
            };
            return Err(error(e.pos(), message, text));
        };
        let t = atom_type(name, pos)?;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(error(pos, format!("atoms nested deeper than {MAX_NESTING}"), name));
        }
        let mut values: Vec<&Expr> = Vec::new();
        // A foreign AST of text (`(SexprAst "(a b)")`, a leaf as printed)
        // is read as a node is, and parsed.
        let h = if t.is_node() || (t == types::SEXPR_AST && matches!(args.first(), Some(Expr::Str(..)))) {
            self.node(t, name, args, pos, &mut values)?
        } else {
            let mut out = Vec::with_capacity(args.len());
            for a in args {
                if head(a).is_some_and(|(h, _, _)| is_attached_value(h)) {
                    values.push(a);
                } else {
                    out.push(self.atom(a)?);
                }
            }
            self.sink.add_link(t, &out).map_err(|e| self.sink_err(pos, e))?
        };
        // A lookup names atoms; the values written in them are not its business.
        if !self.lookup {
            for v in values {
                self.attached(h, v)?;
            }
        }
        self.depth -= 1;
        Ok(h)
    }

    /// A node's expression past its head (`args`), or an SexprAst's text:
    /// its atom; values written in it go to `values`. Kept out of `atom`,
    /// whose frame is on the stack once per level of nesting.
    #[inline(never)]
    fn node<'e>(&mut self, t: Type, name: &str, args: &'e [Expr], pos: Pos, values: &mut Vec<&'e Expr>) -> Result<Handle, ParseError> {
        let mut node_name: Option<String> = None;
        for a in args {
            match a {
                Expr::Str(s, _) if node_name.is_none() => node_name = Some(s.clone()),
                Expr::Number(n, _) if node_name.is_none() => node_name = Some(super::write::fmt_f64(*n)),
                // (NumberNode 1 2 3): a vector, named by its numbers, as Scheme's constructor makes it.
                Expr::Number(n, _) if t == types::NUMBER_NODE && values.is_empty() => {
                    let name = node_name.get_or_insert_with(String::new);
                    name.push(' ');
                    name.push_str(&super::write::fmt_f64(*n));
                }
                _ if head(a).is_some_and(|(h, _, _)| is_attached_value(h)) => values.push(a),
                other => return Err(error(other.pos(), format!("unexpected {} in {name}", show(other)), show(other))),
            }
        }
        let Some(n) = node_name else {
            return Err(error(pos, format!("{name} needs a name string"), name));
        };
        let added = if t == types::SEXPR_AST { crate::foreign::sexpr(self.sink, &n) } else { self.sink.add_node(t, &n) };
        added.map_err(|e| self.sink_err(pos, e))
    }

    /// A value written inside an atom's expression: a truth value, an
    /// attention value or an alist.
    fn attached(&mut self, h: Handle, e: &Expr) -> Result<(), ParseError> {
        let Some((name, args, pos)) = head(e) else {
            return Err(error(e.pos(), "expected (alist ...)", show(e)));
        };
        match name {
            "av" => {
                let av = numbers::<3>(args, pos, "av")?;
                let key = self.sink.add_node(types::PREDICATE_NODE, AV_KEY).map_err(|e| self.sink_err(pos, e))?;
                self.sink.set_value(h, key, Value::float(av.to_vec())).map_err(|e| self.sink_err(pos, e))
            }
            "alist" => {
                for pair in args {
                    match head(pair) {
                        Some(("cons", [k, v], _)) => self.key_value(h, k, v)?,
                        _ => return Err(error(pair.pos(), "expected (cons KEY VALUE) in alist", show(pair))),
                    }
                }
                Ok(())
            }
            _ => {
                let tv = self.truth(e)?;
                self.sink.set_tv(h, tv).map_err(|e| self.sink_err(pos, e))
            }
        }
    }

    fn key_value(&mut self, h: Handle, key: &Expr, value: &Expr) -> Result<(), ParseError> {
        let pos = key.pos();
        // The truth-value key maps onto the atom's truth value, whatever else
        // its expression carries.
        if is_tv_key_expr(key) {
            let tv = self.truth(value)?;
            return self.sink.set_tv(h, tv).map_err(|e| self.sink_err(pos, e));
        }
        let k = self.atom(key)?;
        let v = self.value(value)?;
        self.sink.set_value(h, k, v).map_err(|e| self.sink_err(pos, e))
    }

    /// `(cog-set-value! A KEY #f)`, as Scheme's: the value under the key
    /// goes (under the truth-value key, the truth value is reset).
    fn remove_value(&mut self, h: Handle, key: &Expr) -> Result<(), ParseError> {
        let pos = key.pos();
        let done = if is_tv_key_expr(key) {
            self.sink.set_tv(h, TruthValue::DEFAULT)
        } else {
            let k = self.atom(key)?;
            self.sink.remove_value(h, k)
        };
        done.map_err(|e| self.sink_err(pos, e))
    }

    fn truth(&mut self, e: &Expr) -> Result<TruthValue, ParseError> {
        match head(e) {
            Some(("stv" | "cog-new-stv" | "SimpleTruthValue", args, pos)) => {
                let [s, c] = numbers::<2>(args, pos, "a simple truth value")?;
                Ok(TruthValue::simple(s, c))
            }
            Some(("ctv" | "cog-new-ctv" | "CountTruthValue", args, pos)) => {
                let [m, c, n] = numbers::<3>(args, pos, "a count truth value")?;
                Ok(TruthValue::count(m, c, n))
            }
            _ => Err(error(e.pos(), "expected a truth value such as (stv 0.9 0.8)", show(e))),
        }
    }

    fn value(&mut self, e: &Expr) -> Result<Value, ParseError> {
        let Some((name, args, pos)) = head(e) else {
            return Err(error(e.pos(), "expected a value such as (FloatValue 1 2)", show(e)));
        };
        Ok(match name {
            "FloatValue" => Value::float(args.iter().map(number).collect::<Result<Vec<_>, _>>()?),
            "StringValue" => Value::String(
                args.iter()
                    .map(|a| match a {
                        Expr::Str(s, _) => Ok(s.clone()),
                        other => Err(error(other.pos(), "StringValue holds strings", show(other))),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            "BoolValue" => Value::Bool(
                args.iter()
                    .map(|a| match a {
                        Expr::Symbol(s, _) if s == "#t" => Ok(true),
                        Expr::Symbol(s, _) if s == "#f" => Ok(false),
                        Expr::Number(n, _) => Ok(*n != 0.0),
                        other => Err(error(other.pos(), "BoolValue holds #t and #f", show(other))),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            "LinkValue" | "QueueValue" => {
                self.value_depth += 1;
                if self.value_depth > MAX_VALUE_NESTING {
                    return Err(error(pos, format!("values nested deeper than {MAX_VALUE_NESTING}"), name));
                }
                let items = args.iter().map(|a| self.value(a)).collect::<Result<Vec<_>, _>>()?;
                self.value_depth -= 1;
                if name == "QueueValue" {
                    Value::Queue(crate::QueueValue::new(items))
                } else {
                    Value::link(items)
                }
            }
            // A held space, by name: a new empty space (its atoms are
            // stored on their own, as upstream's episodic spaces are).
            "AtomSpace" => match args {
                [] => Value::Space(crate::AtomSpace::new().into()),
                [Expr::Str(s, _)] => Value::Space(crate::AtomSpace::new_named(s).into()),
                _ => return Err(error(pos, "an AtomSpace value is (AtomSpace \"name\")", name)),
            },
            "VoidValue" if args.is_empty() => Value::Void,
            "VoidValue" => return Err(error(pos, "VoidValue holds nothing", name)),
            "stv" | "ctv" | "SimpleTruthValue" | "CountTruthValue" | "cog-new-stv" | "cog-new-ctv" => Value::Truth(self.truth(e)?),
            _ => match Type::from_name(name) {
                Some(t) if t.is_atom() => Value::Atom(self.atom(e)?),
                Some(t) => return Err(error(pos, format!("values of type {t} cannot be read"), name)),
                None => return Err(error(pos, format!("unknown value type `{name}`"), name)),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::sexpr::write::{atom_to_string, Form};
    use crate::{AtomRead, AtomTable};

    /// Every atom of `table` in the wire form (values too) with the size of
    /// its incoming set, sorted, repeats kept.
    fn atoms(table: &AtomTable) -> Vec<String> {
        let mut all: Vec<String> =
            table.all_atoms().map(|h| format!("{} <- {}", atom_to_string(table, h, Form::Wire).unwrap(), table.incoming(h).map_or(0, <[_]>::len))).collect();
        all.sort();
        all
    }

    /// Into a table on two threads with every batch's nodes looked up on
    /// the reading thread, the adding thread uses the atoms found for the
    /// nodes met again in later batches: the table ends as the one-thread
    /// load leaves it, whether a batch is added a level at a time or,
    /// holding a StateLink, in file order.
    #[test]
    fn nodes_found_by_the_reading_thread_are_the_atoms_used() {
        for keyed in [false, true] {
            let mut text = String::new();
            for i in 0..30_000usize {
                let (a, b) = (i % 499, (i * 13) % 503);
                match i % 4 {
                    _ if keyed && i % 1000 == 999 => writeln!(text, "(State (Anchor \"s{}\") (List (Concept \"n{a}\") (Concept \"n{b}\")))", i % 7),
                    0 => writeln!(text, "(Concept \"n{a}\" (stv 0.{b} 0.5))"),
                    1 => writeln!(text, "(Set (Concept \"n{b}\") (Predicate \"p{a}\") (List (Concept \"n{a}\") (Concept \"x{i}\")))"),
                    2 => writeln!(text, "(Concept \"n{b}\" (alist (cons (Predicate \"p{a}\") (FloatValue {i}))))"),
                    _ => writeln!(text, "(Evaluation (Predicate \"p{b}\") (List (Concept \"n{a}\") (Concept \"n{b}\")))"),
                }
                .unwrap();
            }
            let mut one = AtomTable::new();
            let options = &mut LoadOptions { one_thread: true, ..LoadOptions::default() };
            load_from(&mut one, text.as_bytes(), Place::START, options, |_| {}).unwrap();
            let mut two = AtomTable::new();
            let (mut writer, finder) = two.writer_and_finder();
            let stats = load_on(&mut writer, Some((finder, LookUps::Always)), text.as_bytes(), Place::START, &mut LoadOptions::default(), |_| {}).unwrap();
            assert_eq!(stats.expressions, 30_000);
            assert_eq!(atoms(&two), atoms(&one), "keyed: {keyed}");
        }
    }
}
