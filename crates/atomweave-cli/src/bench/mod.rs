//! `atomweave bench`: upstream's `atomspace_bm`, with its flags, its methods
//! and its table, minus its flaws: every method starts from a freshly built
//! space of the same seed, any `-S` works, the clock is read once per batch,
//! memory is reported per method, and `-T` measures threads.

pub mod atom_bench;
mod methods;
pub mod plot;
mod python_layer;
pub mod read_through;
pub mod report;
mod scheme_layer;
mod server_layer;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use atomweave::{types, AtomRead, AtomSpace, AtomTable, Value};
use hdrhistogram::Histogram;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::json;

use crate::sys::rss_bytes;
use atomweave_bench::RandomSpace;
use indicatif::{ProgressBar, ProgressStyle};
use methods::{draw_inputs, run, Inputs, Method, SpaceRef, Target};

const AFTER_HELP: &str = "\
Layers: the thread-safe AtomSpace is always measured; -X adds the raw
single-threaded AtomTable beside it (upstream's -X); -c adds Python: each
method runs in `$ATOMWEAVE_PYTHON -m atomweave.atomspace_bm` (default
python3) through the atomweave package, on the same random space. --server
HOST:PORT adds a column through a running server's sexpr shell
(`atomweave serve`): one round trip per operation, at most 20000 per method,
on a space built there. -g adds Scheme: each method runs in a worker
process that embeds Guile and loads (opencog); every entry into Guile runs
-r N operations (default 1), interpreted from text, or with -M a memoized
and with -C a compiled procedure made before the clock starts. -x and -b,
which the seed diary's commands give, are accepted and change nothing
(atomweave has no AtomSpaceImpl layer, and always builds the space).

Methods (-l lists them): pointerCast is not offered: it timed casting C++
smart pointers (Handle to Atom*), and atomweave handles are plain integers
with nothing to cast.

Timing: each method runs on a freshly built random space of the same seed;
the clock is read once per batch of --batch operations; with -S N, N random
atoms are added (untimed) before each batch, so the space grows as it is
measured; each method and layer runs --repeat times, the layers taking
turns, and the fastest run is reported (on a shared machine a run can lose
its cache to a neighbour, as the seed diary found: it shows best of three).
-k prints statistics of ns/op over the batches of that run. -f writes
<method>_benchmark.csv (layer, atoms, ns/op, RSS per batch) for bench-plot.

Threads: -T N runs the AtomSpace on N threads and, taking turns with them,
on one thread timed the same way (wall clock from the first thread's start
to the last one's end, bookkeeping between batches included; the threads,
this one among them, meet by spinning, so none waits to be woken), and
prints the scaling between the two: both come from the same stretch of
machine time, which a shared machine's slow and fast spells would
otherwise decide.";

/// The flags of upstream's `atomspace_bm`, plus threads and JSON.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct BenchArgs {
    /// Run all methods.
    #[arg(short = 'A')]
    all: bool,
    /// Run this method (repeatable).
    #[arg(short = 'm', value_name = "NAME")]
    methods: Vec<String>,
    /// List the methods and exit.
    #[arg(short = 'l')]
    list: bool,
    /// Operations per method (per thread with -T).
    #[arg(short = 'n', default_value_t = 1_000_000)]
    n: usize,
    /// Random atoms added before each batch, so the space grows while measured.
    #[arg(short = 'S', default_value_t = 0)]
    grow: usize,
    /// Atoms in the random space built before each method.
    #[arg(short = 's', default_value_t = 1 << 18)]
    size: usize,
    /// Fraction of links in the random space.
    #[arg(short = 'p', default_value_t = 0.2)]
    link_fraction: f64,
    /// Random seed.
    #[arg(short = 'R', default_value_t = 1)]
    seed: u64,
    /// Per-operation statistics: N, mean, min, max, std, p50, p99.
    #[arg(short = 'k')]
    stats: bool,
    /// Write <method>_benchmark.csv files (see --out).
    #[arg(short = 'f')]
    csv: bool,
    /// Print the sizes of the per-atom structures.
    #[arg(short = 't')]
    sizes: bool,
    /// Also measure the raw single-threaded AtomTable.
    #[arg(short = 'X')]
    table: bool,
    /// Upstream's AtomSpaceImpl layer (atomweave has none): accepted, changes nothing.
    #[arg(short = 'x', hide = true)]
    _impl_layer: bool,
    /// Upstream's "build the space first": accepted, the space is always built.
    #[arg(short = 'b', hide = true)]
    _build: bool,
    /// Also measure through Scheme.
    #[arg(short = 'g')]
    scheme: bool,
    /// Scheme: memoize.
    #[arg(short = 'M', requires = "scheme")]
    memoize: bool,
    /// Scheme: compile.
    #[arg(short = 'C', requires = "scheme")]
    compile: bool,
    /// Scheme: operations per entry into the interpreter (default 1).
    #[arg(short = 'r', value_name = "N", requires = "scheme")]
    per_entry: Option<usize>,
    /// Run one method through Scheme in this process and print JSON (what -g spawns).
    #[arg(long, hide = true, requires = "scheme")]
    scheme_worker: bool,
    /// Also measure through Python.
    #[arg(short = 'c')]
    python: bool,
    /// Also measure through a running server's sexpr shell.
    #[arg(long, value_name = "HOST:PORT")]
    server: Option<String>,
    /// Run each method on this many threads at once, sharing its -n
    /// operations (AtomSpace layer); throughput is their aggregate, shown
    /// beside one thread timed the same way.
    #[arg(short = 'T', default_value_t = 1)]
    threads: usize,
    /// Operations per clock reading.
    #[arg(long, default_value_t = 100)]
    batch: usize,
    /// Runs per method and layer, each on a fresh space; the fastest is reported.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Directory for the -f CSV files.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// No progress bars.
    #[arg(short = 'q', long)]
    quiet: bool,
}

/// Where a method is measured.
#[derive(Clone, Debug, PartialEq)]
enum Layer {
    Table,
    /// The AtomSpace on one thread, timed as the `-T` threads are: the
    /// baseline a `-T N` run's scaling is measured against.
    OneThread,
    Space,
    Scheme,
    Python,
    Server(String),
}

impl Layer {
    fn name(&self) -> &'static str {
        match self {
            Layer::Table => "AtomTable",
            Layer::OneThread => "AtomSpace, 1 thread",
            Layer::Space => "AtomSpace",
            Layer::Scheme => "Scheme",
            Layer::Python => "Python",
            Layer::Server(_) => "Server",
        }
    }

    /// The column heading: a `-T` run's two AtomSpace columns are named
    /// by their thread counts.
    fn heading(&self, threads: usize) -> String {
        match self {
            Layer::OneThread => "1 thread".into(),
            Layer::Space if threads > 1 => format!("{threads} threads"),
            _ => self.name().into(),
        }
    }
}

/// A measurement, or why the layer could not make it.
type MeasureResult = Result<Measured, String>;

/// One method measured on one layer.
struct Outcome {
    method: Method,
    layer: Layer,
    result: MeasureResult,
}

struct Measured {
    threads: usize,
    ops: usize,
    /// Wall time of the timed part (threads overlap).
    wall: f64,
    /// ns/op of every batch.
    batch_ns: Vec<f64>,
    /// (atoms, ns/op, rss) per batch, for -f.
    rows: Vec<(usize, f64, usize)>,
    atoms_after: usize,
    rss_growth: isize,
    rss_per_atom: f64,
    counted_per_atom: f64,
}

impl Measured {
    /// The figures of a finished run; `rss_start` was read when timing began,
    /// `rss_built` is the resident growth from building the space.
    #[allow(clippy::too_many_arguments)]
    fn new(
        args: &BenchArgs,
        threads: usize,
        ops: usize,
        (wall, batch_ns, rows): Samples,
        atoms_after: usize,
        heap: usize,
        rss_start: usize,
        rss_built: usize,
    ) -> Measured {
        Measured {
            threads,
            ops,
            wall,
            batch_ns,
            rows,
            atoms_after,
            rss_growth: rss_bytes() as isize - rss_start as isize,
            rss_per_atom: rss_built as f64 / args.size as f64,
            counted_per_atom: heap as f64 / atoms_after.max(1) as f64,
        }
    }

    fn kops(&self) -> f64 {
        self.ops as f64 / self.wall / 1e3
    }
    fn ns_per_op(&self) -> f64 {
        self.wall * 1e9 * self.threads as f64 / self.ops as f64
    }
}

pub fn run_bench(mut args: BenchArgs) -> Result<(), String> {
    if args.list {
        for m in Method::ALL {
            println!("{:<20} {}", m.name(), m.about());
        }
        return Ok(());
    }
    if args.sizes {
        for (what, bytes) in atomweave::structure_sizes() {
            println!("{what:<48} {bytes:>4} bytes");
        }
        return Ok(());
    }
    let methods: Vec<Method> = if args.all {
        Method::ALL.to_vec()
    } else if args.methods.is_empty() {
        return Err("say which methods: -A for all, -m NAME for one (-l lists them)".into());
    } else {
        args.methods.iter().map(|n| Method::from_name(n).ok_or_else(|| format!("unknown method {n:?} (-l lists them)"))).collect::<Result<_, _>>()?
    };
    if args.threads == 0 || args.batch == 0 || args.n == 0 || args.size == 0 || args.repeat == 0 {
        return Err("-T, --batch, --repeat, -n and -s must be at least 1".into());
    }
    if !(0.0..=1.0).contains(&args.link_fraction) {
        return Err(format!("-p {} is not a fraction between 0 and 1", args.link_fraction));
    }
    if args.grow > 0 && args.threads > 1 {
        return Err("-S grows the space between batches of one thread; it cannot be combined with -T".into());
    }
    args.batch = args.batch.min(args.n);
    if args.scheme_worker {
        let [method] = methods[..] else { return Err("the Scheme worker runs one method".into()) };
        return scheme_layer::worker(&args, method);
    }
    let mut layers = Vec::new();
    if args.table {
        layers.push(Layer::Table);
    }
    if args.threads > 1 {
        layers.push(Layer::OneThread);
    }
    layers.push(Layer::Space);
    if args.scheme {
        layers.push(Layer::Scheme);
    }
    if args.python {
        layers.push(Layer::Python);
    }
    if let Some(addr) = &args.server {
        layers.push(Layer::Server(addr.clone()));
    }

    if !args.json {
        println!(
            "atomweave bench: {} atoms ({:.0}% links), seed {}, {} ops per method, {} per clock reading, best of {}, {} thread{}{}",
            args.size,
            args.link_fraction * 100.0,
            args.seed,
            args.n,
            args.batch,
            args.repeat,
            args.threads,
            if args.threads == 1 { "" } else { "s" },
            if args.grow > 0 { format!(", {} atoms added per batch", args.grow) } else { String::new() }
        );
        if args.scheme {
            println!("Scheme column: {}", scheme_layer::title(&args));
        }
    }
    let mut outcomes = Vec::new();
    for &method in &methods {
        // Best of several runs, as the seed diary reports: on a shared machine
        // a run can lose its cache to a neighbour, never gain one. The layers
        // take turns, so a noisy stretch falls on all of them alike.
        let mut best: Vec<MeasureResult> = layers.iter().map(|layer| measure(&args, method, layer)).collect();
        for _ in 1..args.repeat {
            for (layer, slot) in layers.iter().zip(best.iter_mut()) {
                if let (Ok(kept), Ok(mut again)) = (&*slot, measure(&args, method, layer)) {
                    if again.wall < kept.wall {
                        // Only a process's first build grows its RSS; later
                        // ones reuse the memory the allocator kept.
                        again.rss_per_atom = again.rss_per_atom.max(kept.rss_per_atom);
                        *slot = Ok(again);
                    }
                }
            }
        }
        for (layer, result) in layers.iter().zip(best) {
            outcomes.push(Outcome { method, layer: layer.clone(), result });
        }
        if args.csv {
            write_csv(&args, method, &outcomes)?;
        }
    }
    if args.json {
        print_json(&args, &outcomes);
    } else {
        print_table(&args, &methods, &layers, &outcomes);
    }
    Ok(())
}

fn measure(args: &BenchArgs, method: Method, layer: &Layer) -> Result<Measured, String> {
    match layer {
        Layer::Table if args.threads > 1 => Err("single-threaded layer".into()),
        Layer::Table => measure_table(args, method),
        Layer::OneThread => measure_space(args, method, 1),
        Layer::Space => measure_space(args, method, args.threads),
        Layer::Python => python_layer::measure(args, method),
        Layer::Server(_) if args.threads > 1 => Err("single-threaded layer".into()),
        Layer::Server(addr) => measure_server(args, method, addr),
        Layer::Scheme => scheme_layer::measure(args, method),
    }
}

/// A progress bar for building `n` atoms (hidden when `quiet`), as the
/// callback `RandomSpace::grow` reports to.
fn building(n: usize, quiet: bool) -> impl FnMut(u64) {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(n as u64) };
    bar.set_style(ProgressStyle::with_template("building random space [{bar:40}] {pos}/{len} atoms {per_sec}").expect("valid template").progress_chars("=> "));
    move |made| {
        bar.set_position(made);
        if made == n as u64 {
            bar.finish_and_clear();
        }
    }
}

/// Adds the per-method setup: half the atoms hold a value for getValue.
fn prepare(method: Method, atoms: &[atomweave::Handle], key: atomweave::Handle, mut set: impl FnMut(atomweave::Handle, atomweave::Handle, Value)) {
    if method == Method::GetValue {
        for &h in atoms.iter().step_by(2) {
            set(h, key, Value::float(vec![1.0]));
        }
    }
}

fn measure_table(args: &BenchArgs, method: Method) -> Result<Measured, String> {
    let rss0 = rss_bytes();
    let mut table = AtomTable::new();
    let mut rs = RandomSpace::new(args.seed, args.link_fraction);
    rs.grow(&mut table, args.size, building(args.size, args.quiet || args.json)).map_err(|e| e.to_string())?;
    let rss_built = rss_bytes().saturating_sub(rss0);
    let key = table.add_node(types::PREDICATE_NODE, "bench key").map_err(|e| e.to_string())?;
    prepare(method, &rs.atoms, key, |h, k, v| table.set_value(h, k, v).expect("live atom"));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed);
    let inputs = draw_inputs(method, method.ops(args.n), &rs.atoms, &table, key, 0, &mut rng);
    let rss_start = rss_bytes();
    let samples = one_thread(args, method, &inputs, &mut table, &mut rs)?;
    Ok(Measured::new(args, 1, inputs.len(), samples, AtomRead::size(&table), table.heap_bytes(), rss_start, rss_built))
}

fn measure_server(args: &BenchArgs, method: Method, addr: &str) -> Result<Measured, String> {
    use atomweave::AtomSink;
    let rss0 = rss_bytes();
    let mut target = server_layer::ServerTarget::connect(addr)?;
    let mut rs = RandomSpace::new(args.seed, args.link_fraction);
    rs.grow(&mut target, args.size, building(args.size, args.quiet || args.json)).map_err(|e| e.to_string())?;
    let rss_built = rss_bytes().saturating_sub(rss0);
    let key = AtomSink::add_node(&mut target, types::PREDICATE_NODE, "bench key").map_err(|e| e.to_string())?;
    prepare(method, &rs.atoms, key, |h, k, v| AtomSink::set_value(&mut target, h, k, v).expect("live atom"));
    target.settle().map_err(|e| e.to_string())?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed);
    let inputs = draw_inputs(method, method.ops(args.n).min(server_layer::MAX_OPS), &rs.atoms, &target.mirror, key, 0, &mut rng);
    let rss_start = rss_bytes();
    let samples = one_thread(args, method, &inputs, &mut target, &mut rs)?;
    if target.errors.get() > 0 {
        return Err(format!("{} refused", target.errors.get()));
    }
    let mut m = Measured::new(args, 1, inputs.len(), samples, target.size(), 0, rss_start, rss_built);
    // The atoms live in the server: this process's memory says nothing of them.
    m.counted_per_atom = f64::NAN;
    m.rss_growth = 0;
    Ok(m)
}

/// The AtomSpace on `threads` threads. A `-T` run times every thread count,
/// one included, by the wall clock over the whole run (`run_threads`), so
/// that their ratio compares like with like; a plain run times batches.
fn measure_space(args: &BenchArgs, method: Method, threads: usize) -> Result<Measured, String> {
    let rss0 = rss_bytes();
    let space = AtomSpace::new();
    let mut rs = RandomSpace::new(args.seed, args.link_fraction);
    rs.grow(&mut &space, args.size, building(args.size, args.quiet || args.json)).map_err(|e| e.to_string())?;
    let rss_built = rss_bytes().saturating_sub(rss0);
    let key = space.add_node(types::PREDICATE_NODE, "bench key").map_err(|e| e.to_string())?;
    prepare(method, &rs.atoms, key, |h, k, v| space.set_value(h, k, v).expect("live atom"));
    let inputs: Vec<Inputs> = {
        let view = space.read().expect("a root space");
        // The threads share the operations, so that every thread count does
        // the same work and leaves a space of the same size.
        let ops = method.ops(args.n);
        (0..threads)
            .map(|t| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0x5eed ^ (t as u64) << 32);
                let share = ops / threads + usize::from(t < ops % threads);
                draw_inputs(method, share, &rs.atoms, &view, key, t, &mut rng)
            })
            .collect()
    };
    let rss_start = rss_bytes();
    let (wall, batch_ns, rows) = if args.threads == 1 {
        one_thread(args, method, &inputs[0], &mut SpaceRef(&space), &mut rs)?
    } else {
        run_threads(&space, method, &inputs, args.batch)
    };
    let ops = inputs.iter().map(Inputs::len).sum();
    Ok(Measured::new(args, threads, ops, (wall, batch_ns, rows), space.size(), space.heap_bytes(), rss_start, rss_built))
}

/// Per-batch samples of one thread: wall time, ns/op per batch, and
/// (atoms, ns/op, RSS) rows for -f.
type Samples = (f64, Vec<f64>, Vec<(usize, f64, usize)>);

/// Times `inputs` in batches on one thread, growing the space by -S atoms
/// (untimed) before each batch.
fn one_thread<T: Target>(args: &BenchArgs, method: Method, inputs: &Inputs, target: &mut T, rs: &mut RandomSpace) -> Result<Samples, String> {
    let (mut wall, mut batch_ns, mut rows) = (0.0, Vec::new(), Vec::new());
    for start in (0..inputs.len()).step_by(args.batch) {
        if args.grow > 0 {
            target.grow(rs, args.grow).map_err(|e| e.to_string())?;
        }
        let end = (start + args.batch).min(inputs.len());
        let secs = run(target, method, inputs, start..end).as_secs_f64();
        wall += secs;
        let ns = secs * 1e9 / (end - start) as f64;
        batch_ns.push(ns);
        if args.csv {
            rows.push((target.size(), ns, rss_bytes()));
        }
    }
    Ok((wall, batch_ns, rows))
}

/// Every thread runs its own inputs on the shared space (see `together`);
/// the wall time runs from the first thread's start to the last one's end.
fn run_threads(space: &AtomSpace, method: Method, inputs: &[Inputs], batch: usize) -> Samples {
    let (wall, per_thread) = together(inputs.len(), |t| {
        let (inp, mut target) = (&inputs[t], SpaceRef(space));
        let mut ns = Vec::new();
        for first in (0..inp.len()).step_by(batch) {
            let end = (first + batch).min(inp.len());
            ns.push(run(&mut target, method, inp, first..end).as_secs_f64() * 1e9 / (end - first) as f64);
        }
        ns
    });
    (wall, per_thread.concat(), Vec::new())
}

/// Runs `work(0..n)` on `n` threads at once, the calling thread one of
/// them, so that N threads are N runnable threads, and returns the seconds
/// from the first one's start to the last one's end, with their results.
/// They meet by spinning, not parking: a parked thread's wake-up (and,
/// with a thread more than there are cores, its wait for one) took
/// milliseconds, as long as a whole fast read method's run at -n 5000000.
fn together<R: Send>(n: usize, work: impl Fn(usize) -> R + Sync) -> (f64, Vec<R>) {
    let ready = AtomicUsize::new(0);
    let timed = |t: usize| {
        ready.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0u32;
        while ready.load(Ordering::Acquire) < n {
            // More threads than cores: let the ones still to arrive run.
            spins += 1;
            if spins % 1024 == 0 {
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
        let start = Instant::now();
        let r = work(t);
        (start, Instant::now(), r)
    };
    let runs: Vec<(Instant, Instant, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..n).map(|t| scope.spawn(move || timed(t))).collect();
        let mine = timed(0);
        std::iter::once(mine).chain(handles.into_iter().map(|h| h.join().expect("benchmark thread"))).collect()
    });
    let start = runs.iter().map(|r| r.0).min().expect("at least one thread");
    let end = runs.iter().map(|r| r.1).max().expect("at least one thread");
    ((end - start).as_secs_f64(), runs.into_iter().map(|r| r.2).collect())
}

fn write_csv(args: &BenchArgs, method: Method, outcomes: &[Outcome]) -> Result<(), String> {
    let measured = outcomes.iter().filter(|o| o.method == method).filter_map(|o| o.result.as_ref().ok());
    if measured.map(|m| m.rows.len()).sum::<usize>() == 0 {
        // Threaded runs time batches per thread, with no one space size to plot.
        return Ok(());
    }
    let path = args.out.join(format!("{}_benchmark.csv", method.name()));
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    std::fs::create_dir_all(&args.out).map_err(io)?;
    let mut w = BufWriter::new(File::create(&path).map_err(io)?);
    writeln!(w, "layer,atoms,ns_per_op,rss_bytes").map_err(io)?;
    for o in outcomes.iter().filter(|o| o.method == method) {
        if let Ok(m) = &o.result {
            for &(atoms, ns, rss) in &m.rows {
                writeln!(w, "{},{atoms},{ns:.3},{rss}", o.layer.name()).map_err(io)?;
            }
        }
    }
    w.flush().map_err(io)
}

/// Statistics of ns/op over the batches: (mean, min, max, std, p50, p99).
fn stats(ns: &[f64]) -> (f64, f64, f64, f64, f64, f64) {
    let n = ns.len().max(1) as f64;
    let mean = ns.iter().sum::<f64>() / n;
    let std = (ns.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt();
    let min = ns.iter().copied().fold(f64::INFINITY, f64::min);
    let max = ns.iter().copied().fold(0.0, f64::max);
    // Picoseconds keep sub-nanosecond precision in the integer histogram.
    let mut h = Histogram::<u64>::new_with_bounds(1, 1 << 50, 3).expect("histogram bounds");
    for &x in ns {
        h.saturating_record((x * 1000.0).max(1.0) as u64);
    }
    (mean, min, max, std, h.value_at_quantile(0.5) as f64 / 1000.0, h.value_at_quantile(0.99) as f64 / 1000.0)
}

fn print_table(args: &BenchArgs, methods: &[Method], layers: &[Layer], outcomes: &[Outcome]) {
    let find = |m: Method, l: &Layer| outcomes.iter().find(|o| o.method == m && &o.layer == l).map(|o| &o.result);
    let w = 22;
    let headings: Vec<String> = layers.iter().map(|l| l.heading(args.threads)).collect();
    println!();
    let row = |m: Method, cell: &dyn Fn(Option<&MeasureResult>) -> String| {
        print!("  {:<21}", m.name());
        for l in layers {
            print!("{:>w$}", cell(find(m, l)));
        }
    };
    // A -T run ends each row with the threads' throughput over one thread's.
    let scaling = args.threads > 1;
    print_heading(&headings, w, ["test", "name", "----"], ["K-ops/s    ns/op", "-------    -----"], scaling.then_some(["scaling", "-------"]));
    for &m in methods {
        row(m, &|r| match r {
            Some(Ok(r)) => format!("{:>10} {:>8.1}", fmt_kops(r.kops()), r.ns_per_op()),
            Some(Err(e)) => e.clone(),
            None => "-".into(),
        });
        if scaling {
            match scaling_of(outcomes, m) {
                Some(x) => print!("{x:>9.2}x"),
                None => print!("{:>10}", "-"),
            }
        }
        println!();
    }
    println!();
    print_heading(&headings, w, ["memory", "method", "------"], ["B/atom  +RSS MiB", "------  --------"], None);
    for &m in methods {
        row(m, &|r| match r {
            // Per-atom figures of a space the method emptied say nothing.
            Some(Ok(r)) if r.counted_per_atom.is_nan() => format!("{:>7} {:>9}", "-", "-"),
            Some(Ok(r)) if r.atoms_after < args.size / 100 => format!("{:>7} {:>9.1}", "-", r.rss_growth as f64 / 1048576.0),
            Some(Ok(r)) => format!("{:>7.1} {:>9.1}", r.counted_per_atom, r.rss_growth as f64 / 1048576.0),
            Some(Err(_)) | None => "-".into(),
        });
        println!();
    }
    // The first measured layer's: others may build in processes of their own.
    let first = layers.iter().find(|&l| outcomes.iter().any(|o| &o.layer == l && o.result.is_ok()));
    let built = outcomes.iter().filter(|o| Some(&o.layer) == first).filter_map(|o| o.result.as_ref().ok()).map(|r| r.rss_per_atom).fold(f64::NAN, f64::max);
    if !built.is_nan() {
        println!(
            "\n  B/atom: the space's own count after the method; +RSS: resident growth during it.\n  \
             Building the random space took {built:.1} bytes of resident memory per atom."
        );
    }
    if args.stats {
        println!("\n  per-operation statistics, ns/op over batches of {}:", args.batch);
        for o in outcomes {
            if let Ok(r) = &o.result {
                let (mean, min, max, std, p50, p99) = stats(&r.batch_ns);
                println!(
                    "  {:<20} {:<10} N {:>9}  mean {mean:>9.1}  min {min:>9.1}  max {max:>10.1}  std {std:>9.1}  p50 {p50:>9.1}  p99 {p99:>9.1}",
                    o.method.name(),
                    o.layer.heading(args.threads),
                    r.ops
                );
            }
        }
    }
    if args.csv {
        println!("\n  CSV files written to {}", args.out.display());
    }
}

/// A `-T` run's throughput for `m` on its threads over one thread's.
fn scaling_of(outcomes: &[Outcome], m: Method) -> Option<f64> {
    let kops = |l: Layer| outcomes.iter().find(|o| o.method == m && o.layer == l)?.result.as_ref().ok().map(Measured::kops);
    Some(kops(Layer::Space)? / kops(Layer::OneThread)?)
}

/// Three heading lines: the row titles, then the layers' headings, then
/// the columns' subheadings under each layer; `last` heads a final column.
fn print_heading(headings: &[String], w: usize, titles: [&str; 3], columns: [&str; 2], last: Option<[&str; 2]>) {
    print!("   {:<20}", titles[0]);
    for h in headings {
        print!("{h:>w$}");
    }
    if let Some([name, _]) = last {
        print!("{name:>10}");
    }
    for (i, (title, column)) in titles[1..].iter().zip(columns).enumerate() {
        print!("\n   {title:<20}");
        for _ in headings {
            print!("{column:>w$}");
        }
        if let (1, Some([_, rule])) = (i, last) {
            print!("{rule:>10}");
        }
    }
    println!();
}

fn fmt_kops(k: f64) -> String {
    if k >= 100.0 {
        format!("{k:.0}")
    } else if k >= 1.0 {
        format!("{k:.1}")
    } else {
        format!("{k:.3}")
    }
}

fn print_json(args: &BenchArgs, outcomes: &[Outcome]) {
    let results: Vec<_> = outcomes
        .iter()
        .map(|o| match &o.result {
            Ok(r) => {
                let (mean, min, max, std, p50, p99) = stats(&r.batch_ns);
                let scaling = if o.layer == Layer::Space { scaling_of(outcomes, o.method) } else { None };
                json!({
                    "method": o.method.name(), "layer": o.layer.name(), "threads": r.threads, "ops": r.ops,
                    "seconds": r.wall, "kops_per_sec": r.kops(), "ns_per_op": r.ns_per_op(),
                    "batch_ns": {"mean": mean, "min": min, "max": max, "std": std, "p50": p50, "p99": p99},
                    "atoms_after": r.atoms_after, "rss_growth_bytes": r.rss_growth,
                    "bytes_per_atom_counted": r.counted_per_atom, "bytes_per_atom_rss_build": r.rss_per_atom,
                    "scaling": scaling,
                })
            }
            Err(e) => json!({"method": o.method.name(), "layer": o.layer.name(), "error": e}),
        })
        .collect();
    let doc = json!({
        "size": args.size, "link_fraction": args.link_fraction, "seed": args.seed, "n": args.n,
        "batch": args.batch, "repeat": args.repeat, "threads": args.threads, "grow": args.grow, "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("serializable"));
}
