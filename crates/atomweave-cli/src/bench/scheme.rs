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
//! The operations name their atoms by index into vectors defined before the
//! clock starts (`bench-atoms`, `bench-names`, ...), so the text is the same
//! size for every operation and the procedure is the same for every entry.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use atomweave::{types, AtomSpace};
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
    super::python::from_json(args, &out.stdout)
}

/// The index expression of operation `k` of an entry: a literal for the
/// interpreter (each entry has its own text), `(+ base k)` in a procedure.
fn index(literal: Option<usize>, k: usize) -> String {
    match literal {
        Some(start) => (start + k).to_string(),
        None if k == 0 => "base".into(),
        None => format!("(+ base {k})"),
    }
}

/// The Scheme text of one operation.
fn op(method: Method, i: &str) -> String {
    let atom = format!("(vector-ref bench-atoms {i})");
    match method {
        Method::Noop => atom,
        Method::GetType => format!("(cog-type {atom})"),
        Method::GetTv => format!("(cog-tv {atom})"),
        Method::SetTv => format!("(cog-set-tv! {atom} (vector-ref bench-tvs {i}))"),
        Method::GetValue => format!("(cog-value {atom} bench-key)"),
        Method::SetValue => format!("(cog-set-value! {atom} bench-key bench-value)"),
        Method::GetIncomingSet => format!("(cog-incoming-set {atom})"),
        Method::GetIncomingSetSize => format!("(cog-incoming-size {atom})"),
        Method::GetOutgoingSet => format!("(cog-outgoing-set {atom})"),
        Method::AddNode => format!("(cog-new-node 'ConceptNode (vector-ref bench-names {i}))"),
        Method::AddLink => format!("(cog-new-link 'InheritanceLink (vector-ref bench-links {i}))"),
        Method::RemoveAtom => format!("(cog-extract-recursive! {atom})"),
        Method::GetHandlesByType => format!("(cog-get-atoms (vector-ref bench-types {i}))"),
        Method::GetNodeHandles => format!("(cog-node (vector-ref bench-types {i}) (vector-ref bench-names {i}))"),
    }
}

/// The text of one entry's `r` operations.
fn entry_text(method: Method, literal: Option<usize>, r: usize) -> String {
    let mut s = String::new();
    for k in 0..r {
        s.push_str(&op(method, &index(literal, k)));
        s.push('\n');
    }
    s
}

/// Defines the vectors the operations read.
fn define_inputs(inp: &Inputs, key: atomweave::Handle) -> Result<(), String> {
    use atomweave_guile::{atom_object, define, define_vector, ffi, tv_object};
    define_vector("bench-atoms", inp.handles.iter().map(|&h| atom_object(h)));
    define_vector("bench-tvs", inp.tvs.iter().map(|&tv| tv_object(tv)));
    define_vector("bench-names", (0..inp.name_ends.len()).map(|i| ffi::string(inp.name(i))));
    define_vector("bench-types", inp.types.iter().map(|t| ffi::symbol(t.name())));
    define_vector("bench-links", (0..inp.member_ends.len()).map(|i| ffi::list(inp.members(i).iter().map(|&h| atom_object(h)))));
    define("bench-key", atom_object(key));
    atomweave_guile::run("(define bench-value (FloatValue 1 2 3))")
}

/// The worker: measures one method through Scheme and prints JSON.
pub(super) fn worker(args: &BenchArgs, method: Method) -> Result<(), String> {
    let rss0 = rss_bytes();
    let space = AtomSpace::new();
    atomweave_guile::boot(space.clone());
    let mut rs = RandomSpace::new(args.seed, args.link_fraction);
    rs.grow(&mut &space, args.size, building(args.size, true)).map_err(|e| e.to_string())?;
    let rss_built = rss_bytes().saturating_sub(rss0);
    let key = space.add_node(types::PREDICATE_NODE, "bench key").map_err(|e| e.to_string())?;
    prepare(method, &rs.atoms, key, |h, k, v| space.set_value(h, k, v).expect("live atom"));
    let r = per_entry(args);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed);
    let inputs = {
        let view = space.read().expect("a root space");
        draw_inputs(method, method.ops(args.n), &rs.atoms, &view, key, 0, &mut rng)
    };
    define_inputs(&inputs, key)?;
    // Whole entries only: every entry runs exactly r operations.
    let entries = inputs.len() / r;
    if entries == 0 {
        return Err(format!("-n {} is smaller than -r {r}", inputs.len()));
    }
    let procedure = if args.compile || args.memoize {
        Some(atomweave_guile::make_procedure(&format!("(lambda (base)\n{})", entry_text(method, None, r)), args.compile)?)
    } else {
        None
    };
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
                let text = entry_text(method, Some(start), r);
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
