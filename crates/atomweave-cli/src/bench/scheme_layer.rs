//! The Scheme layer (`-g`), as the seed diary's Scheme columns: each method
//! runs in a worker process (`atomweave bench --scheme-worker`) that embeds
//! Guile, loads `(opencog)` and builds the same random space. Every entry
//! into Guile runs `-r N` operations:
//!
//! - plain `-g`: the text of the N operations is read and interpreted at
//!   every entry (upstream's `scm_c_eval_string`);
//! - `-M`: one procedure of N operations is evaluated (memoized) before the
//!   clock starts and called at every entry;
//! - `-C`: the same procedure, compiled.
//!
//! The interpreter's text names atoms by handle, `(cog-atom 1234)`, as
//! upstream's did, and holds names and truth values as literals (so it keeps
//! no Scheme data alive for the collector to walk); a procedure reads operation `(+ base k)`'s atom, name or truth
//! value from vectors made, in operation order, before the clock starts.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use atomweave::{types, AtomSpace, Handle};
use atomweave_bench::RandomSpace;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::json;

use super::methods::{draw_inputs, Inputs, Method};
use super::{building, prepare, BenchArgs, Measured};
use crate::sys::rss_bytes;

/// Operations per entry into Guile.
fn per_entry(args: &BenchArgs) -> usize {
    args.per_entry.unwrap_or(1).max(1)
}

/// The column's title: `Scheme`, `Scheme -C`, `Scheme -M -r100`.
pub(super) fn title(args: &BenchArgs) -> String {
    let mut t = String::from("Scheme");
    if args.compile {
        t.push_str(" -C");
    } else if args.memoize {
        t.push_str(" -M");
    }
    if per_entry(args) > 1 {
        let _ = write!(t, " -r{}", per_entry(args));
    }
    t
}

pub(super) fn measure(args: &BenchArgs, method: Method) -> Result<Measured, String> {
    if args.threads > 1 {
        return Err("single-threaded layer".into());
    }
    if args.grow > 0 {
        return Err("not with -S".into());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(["bench", "--scheme-worker", "-g", "-m", method.name()])
        .args(["-s", &args.size.to_string(), "-R", &args.seed.to_string(), "-p", &args.link_fraction.to_string()])
        .args(["-n", &args.n.to_string(), "-r", &per_entry(args).to_string()]);
    if args.compile {
        cmd.arg("-C");
    } else if args.memoize {
        cmd.arg("-M");
    }
    let out = cmd.output().map_err(|e| format!("cannot run the Scheme worker: {e}"))?;
    if !out.status.success() {
        eprintln!("atomweave bench -g ({}): {}", method.name(), String::from_utf8_lossy(&out.stderr).trim());
        return Err("failed".into());
    }
    super::python_layer::from_json(args, &out.stdout)
}

/// The operations' data, and the space they run on.
struct Ops<'a> {
    inp: &'a Inputs,
    space: &'a AtomSpace,
}

impl Ops<'_> {
    /// The interpreter's text of operation `i`: its data as literals, atoms
    /// by handle, as upstream's text had them.
    fn literal(&self, method: Method, i: usize) -> String {
        let inp = self.inp;
        let atom = |h: Handle| format!("(cog-atom {})", h.to_u32());
        let name = || {
            let mut s = String::new();
            atomweave::sexpr::write_str_literal(&mut s, inp.name(i));
            s
        };
        match method {
            Method::AddNode => format!("(cog-new-node 'ConceptNode {})", name()),
            Method::AddLink => format!("(cog-new-link 'InheritanceLink {})", inp.members(i).iter().map(|&h| atom(h)).collect::<Vec<_>>().join(" ")),
            Method::GetHandlesByType => format!("(cog-get-atoms '{})", inp.types[i].name()),
            Method::GetNodeHandles => format!("(cog-node '{} {})", inp.types[i].name(), name()),
            Method::SetTv => format!("(cog-set-tv! {} (stv {} {}))", atom(inp.handles[i]), inp.tvs[i].mean(), inp.tvs[i].confidence()),
            // An atom an earlier removal took with it is only looked up, as
            // the Rust layers' extract of a dead handle fails at once.
            Method::RemoveAtom if !self.space.contains(inp.handles[i]) => atom(inp.handles[i]),
            _ => Self::on_atom(method, &atom(inp.handles[i])),
        }
    }

    /// A procedure's text of operation `(+ base k)`: its data from the vectors.
    fn from_vectors(method: Method, k: usize) -> String {
        let ix = if k == 0 { "base".to_string() } else { format!("(+ base {k})") };
        match method {
            Method::AddNode => format!("(cog-new-node 'ConceptNode (vector-ref bench-names {ix}))"),
            Method::AddLink => format!("(cog-new-link 'InheritanceLink (vector-ref bench-links {ix}))"),
            Method::GetHandlesByType => format!("(cog-get-atoms (vector-ref bench-types {ix}))"),
            Method::GetNodeHandles => format!("(cog-node (vector-ref bench-types {ix}) (vector-ref bench-names {ix}))"),
            Method::SetTv => format!("(cog-set-tv! (vector-ref bench-atoms {ix}) (vector-ref bench-tvs {ix}))"),
            _ => Self::on_atom(method, &format!("(vector-ref bench-atoms {ix})")),
        }
    }

    /// The operations on one atom, alike in both forms.
    fn on_atom(method: Method, atom: &str) -> String {
        match method {
            Method::GetType => format!("(cog-type {atom})"),
            Method::GetTv => format!("(cog-tv {atom})"),
            Method::GetValue => format!("(cog-value {atom} bench-key)"),
            Method::SetValue => format!("(cog-set-value! {atom} bench-key bench-value)"),
            Method::GetIncomingSet => format!("(cog-incoming-set {atom})"),
            Method::GetIncomingSetSize => format!("(cog-incoming-size {atom})"),
            Method::GetOutgoingSet => format!("(cog-outgoing-set {atom})"),
            Method::RemoveAtom => format!("(cog-extract-recursive! {atom})"),
            _ => atom.to_string(),
        }
    }

    /// Defines the vectors the operations read.
    fn define(&self, key: Handle, vectors: bool) -> Result<(), String> {
        use atomweave_guile::{atom_object, define, define_vector, ffi, tv_object};
        let inp = self.inp;
        define("bench-key", atom_object(key));
        if vectors {
            // One object per operation, made in operation order: a procedure
            // reads them in sequence, as code walking its own data does.
            define_vector("bench-atoms", inp.handles.iter().map(|&h| atom_object(h)));
            define_vector("bench-tvs", inp.tvs.iter().map(|&tv| tv_object(tv)));
            define_vector("bench-names", (0..inp.name_ends.len()).map(|i| ffi::string(inp.name(i))));
            define_vector("bench-types", inp.types.iter().map(|t| ffi::symbol(t.name())));
            define_vector("bench-links", (0..inp.member_ends.len()).map(|i| ffi::list(inp.members(i).iter().map(|&h| atom_object(h)))));
        }
        atomweave_guile::run("(define bench-value (FloatValue 1 2 3))")
    }

    /// The text of one entry's `r` operations: literal ones from operation
    /// `start`, or a procedure body's.
    fn entry(&self, method: Method, start: Option<usize>, r: usize) -> String {
        let mut s = String::new();
        for k in 0..r {
            s.push_str(&match start {
                Some(st) => self.literal(method, st + k),
                None => Self::from_vectors(method, k),
            });
            s.push('\n');
        }
        s
    }
}

/// The worker: measures one method through Scheme and prints JSON.
pub(super) fn worker(args: &BenchArgs, method: Method) -> Result<(), String> {
    let rss0 = rss_bytes();
    let space = AtomSpace::new();
    atomweave_guile::boot(space.clone());
    atomweave_guile::with_guile(|| measure_in_guile(args, method, &space, rss0))
}

/// The worker's measurement, in Guile mode.
fn measure_in_guile(args: &BenchArgs, method: Method, space: &AtomSpace, rss0: usize) -> Result<(), String> {
    let mut rs = RandomSpace::new(args.seed, args.link_fraction);
    rs.grow(&mut &*space, args.size, building(args.size, true)).map_err(|e| e.to_string())?;
    let rss_built = rss_bytes().saturating_sub(rss0);
    let key = space.add_node(types::PREDICATE_NODE, "bench key").map_err(|e| e.to_string())?;
    prepare(method, &rs.atoms, key, |h, k, v| space.set_value(h, k, v).expect("live atom"));
    let r = per_entry(args);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed);
    let inputs = {
        let view = space.read().expect("a root space");
        draw_inputs(method, method.ops(args.n), &rs.atoms, &view, key, 0, &mut rng)
    };
    let ops = Ops { inp: &inputs, space };
    let procedures = args.compile || args.memoize;
    ops.define(key, procedures)?;
    // Whole entries only: every entry runs exactly r operations.
    let entries = inputs.len() / r;
    if entries == 0 {
        return Err(format!("-n {} is smaller than -r {r}", inputs.len()));
    }
    let procedure =
        if procedures { Some(atomweave_guile::make_procedure(&format!("(lambda (base)\n{})", ops.entry(method, None, r)), args.compile)?) } else { None };
    let rss_start = rss_bytes();
    let mut batch_ns = Vec::with_capacity(entries);
    let mut wall = 0.0;
    for e in 0..entries {
        let start = e * r;
        let secs = match procedure {
            Some(p) => {
                let t = Instant::now();
                atomweave_guile::call(p, start as i64)?;
                t.elapsed().as_secs_f64()
            }
            None => {
                let text = ops.entry(method, Some(start), r);
                let t = Instant::now();
                atomweave_guile::run(&text)?;
                t.elapsed().as_secs_f64()
            }
        };
        wall += secs;
        batch_ns.push(secs * 1e9 / r as f64);
    }
    let out = json!({
        "ops": entries * r,
        "wall": wall,
        "batch_ns": batch_ns,
        "atoms_after": space.size(),
        "rss_growth": rss_bytes() as i64 - rss_start as i64,
        "rss_built": rss_built,
        "heap_bytes": space.heap_bytes(),
    });
    println!("{out}");
    Ok(())
}
