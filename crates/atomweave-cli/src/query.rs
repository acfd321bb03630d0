//! `atomweave query`, `atomweave query-bench` and `atomweave profile-query`.

use std::path::PathBuf;
use std::time::Instant;

use atomweave::query::{execute, with_strategy, Executed, Strategy};
use atomweave::sexpr::{self, Form};
use atomweave::{AtomSpace, Handle};
use clap::Args;

mod genomics;
mod mork;

#[derive(Args)]
pub struct QueryArgs {
    /// Atomese data files, loaded in order before the queries run.
    files: Vec<PathBuf>,
    /// A query in Atomese (repeatable; each expression in it is executed).
    #[arg(short = 'e', long = "expr", value_name = "QUERY")]
    exprs: Vec<String>,
    /// A file of queries (repeatable).
    #[arg(short = 'f', long = "file", value_name = "QUERY.scm")]
    query_files: Vec<PathBuf>,
    /// Query this LMDB store without loading it (lmdb:///dir): atoms are
    /// read from it as the queries need them; the data files are added
    /// over it. Nothing is written to it.
    #[arg(long, value_name = "URL")]
    from: Option<String>,
    /// Threads for large searches (default: one per core).
    #[arg(short = 'T', long)]
    threads: Option<usize>,
    /// No progress bar while loading.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    read: super::input_files::ReadArgs,
}

pub fn run(args: QueryArgs) -> Result<(), String> {
    if args.exprs.is_empty() && args.query_files.is_empty() {
        return Err("no query: give one with -e 'QUERY' or -f QUERY.scm".into());
    }
    let space = match &args.from {
        Some(url) => atomweave_store::read_through::open_space(url).map_err(|e| e.to_string())?,
        None => AtomSpace::new(),
    };
    let mut target = super::input_files::Target::Space(space);
    super::input_files::load_files(&mut target, &args.files, args.quiet, &args.read)?;
    let space = target.into_space();
    let mut texts: Vec<(String, String)> = args.exprs.iter().enumerate().map(|(i, e)| (format!("-e #{}", i + 1), e.clone())).collect();
    for f in &args.query_files {
        texts.push((f.display().to_string(), std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?));
    }
    let pool = pool(args.threads)?;
    for (origin, text) in texts {
        let queries = sexpr::load_str(&mut &space, &text).map_err(|e| format!("{origin}: {e}"))?;
        for q in queries {
            let result = pool.install(|| execute(&space, q)).map_err(|e| format!("{origin}: {e}"))?;
            let text = show(&space, &result).map_err(|e| format!("{origin}: {e}"))?;
            // Showing reads values, through the store too.
            if let Some(e) = space.take_backing_error() {
                return Err(format!("{origin}: {e}"));
            }
            println!("{text}");
        }
    }
    Ok(())
}

fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err("-T needs at least one thread".into());
        }
        b = b.num_threads(n);
    }
    b.build().map_err(|e| e.to_string())
}

/// A result in the REPL form.
fn show(space: &AtomSpace, r: &Executed) -> Result<String, String> {
    // Through the read view when there is one; else (a truth value that is
    // a stream, read by running it; a store read through for values)
    // through the space.
    if space.is_read_through() {
        return show_in(space, r);
    }
    match space.read() {
        Some(view) => show_in(&view, r),
        None => show_in(space, r),
    }
}

fn show_in(source: &impl sexpr::AtomSource, r: &Executed) -> Result<String, String> {
    let mut out = String::new();
    match r {
        Executed::Atom(h) => sexpr::write_atom(source, *h, Form::Repl, &mut out).map_err(|e| e.to_string())?,
        // Truth values as the REPL writes them on atoms.
        Executed::Value(atomweave::Value::Truth(tv)) => sexpr::write_tv(*tv, &mut out),
        Executed::Value(v) => sexpr::write_value(source, v, &mut out).map_err(|e| e.to_string())?,
    }
    Ok(out)
}

#[derive(Args)]
pub struct QueryBenchArgs {
    /// Executions of each animals query.
    #[arg(short = 'n', long, default_value_t = 100_000)]
    iterations: usize,
    /// Nodes of the triangle graph.
    #[arg(long, default_value_t = 10_000)]
    nodes: usize,
    /// Undirected edges of the triangle graph.
    #[arg(long, default_value_t = 100_000)]
    edges: usize,
    /// Threads for the triangle search, beside the one-thread run.
    #[arg(short = 'T', long, default_value_t = 2)]
    threads: usize,
    /// Random seed of the graph.
    #[arg(short = 'R', long, default_value_t = 1)]
    seed: u64,
    /// Which workloads: atomweave's own, MORK's kernel benchmarks
    /// (cliques, transitive steps, a finite domain), or upstream's genomics
    /// loop (triangles and pentagons through Scheme).
    #[arg(long, value_enum, default_value_t = Suite::Atomweave)]
    suite: Suite,
    /// Divide the sizes of MORK's transitive and finite-domain workloads,
    /// or of the genomics graph, by this (1: the peer's own).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    scale: u32,
    /// Run only this part (of the suite's).
    #[arg(long, value_enum)]
    only: Option<Part>,
    /// Leave the graph queries' worker threads to the scheduler, instead of
    /// keeping each on a core of its own.
    #[arg(long)]
    no_pin: bool,
}

#[derive(Args)]
pub struct ProfileArgs {
    /// Atomese data files, loaded in order (default: query-bench's animals).
    files: Vec<PathBuf>,
    /// The query, one Atomese expression (default: the animals BindLink).
    #[arg(short = 'e', long = "expr", value_name = "QUERY", conflicts_with = "query_file")]
    expr: Option<String>,
    /// A file holding the query.
    #[arg(short = 'f', long = "file", value_name = "QUERY.scm")]
    query_file: Option<PathBuf>,
    /// Run for this many seconds.
    #[arg(short = 's', long, default_value_t = 10.0)]
    seconds: f64,
    /// Run exactly this many executions instead.
    #[arg(short = 'n', long)]
    iterations: Option<u64>,
    /// Threads for the search.
    #[arg(short = 'T', long, default_value_t = 1)]
    threads: usize,
    /// No progress bar while loading.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    read: super::input_files::ReadArgs,
}

/// `profile-query`: upstream's `profile_bindlink`, one query executed in a
/// loop long enough for a profiler (perf, callgrind) to see where its
/// time goes.
pub fn profile(args: ProfileArgs) -> Result<(), String> {
    let space = if args.files.is_empty() {
        let space = AtomSpace::new();
        sexpr::load_str(&mut &space, ANIMALS).map_err(|e| e.to_string())?;
        space
    } else {
        let mut target = super::input_files::Target::Space(AtomSpace::new());
        super::input_files::load_files(&mut target, &args.files, args.quiet, &args.read)?;
        target.into_space()
    };
    let text = match (&args.expr, &args.query_file) {
        (Some(e), _) => e.clone(),
        (None, Some(f)) => std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?,
        (None, None) => ANIMALS_BIND.to_string(),
    };
    let q = match sexpr::load_str(&mut &space, &text).map_err(|e| format!("the query: {e}"))?[..] {
        [q] => q,
        ref qs => return Err(format!("the query: one expression is profiled, and this text holds {}", qs.len())),
    };
    let pool = pool(Some(args.threads))?;
    let first = pool.install(|| execute(&space, q)).map_err(|e| e.to_string())?;
    println!("profile-query: {} (pid {})", show(&space, &first)?.split_whitespace().collect::<Vec<_>>().join(" "), std::process::id());
    let deadline = std::time::Duration::from_secs_f64(args.seconds.max(0.0));
    let start = Instant::now();
    let done = pool.install(|| -> Result<u64, String> {
        let mut n = 0u64;
        loop {
            match args.iterations {
                Some(limit) if n >= limit => return Ok(n),
                // The clock read every 64 executions, not each.
                None if n % 64 == 0 && start.elapsed() >= deadline => return Ok(n),
                _ => {}
            }
            std::hint::black_box(execute(&space, q).map_err(|e| e.to_string())?);
            n += 1;
        }
    })?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "profile-query: {done} executions in {secs:.2} s, {:.2} us each, {} thread(s), pid {}",
        secs * 1e6 / done.max(1) as f64,
        args.threads,
        std::process::id()
    );
    Ok(())
}

/// The query `profile-query` runs by default, over [`ANIMALS`].
const ANIMALS_BIND: &str = r#"(Bind (Variable "$x") (Inheritance (Variable "$x") (Concept "bird")) (Evaluation (Predicate "flies") (List (Variable "$x"))))"#;

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    Atomweave,
    Mork,
    Genomics,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Part {
    Animals,
    Triangles,
    Execution,
    Cliques,
    Transitive,
    FiniteDomain,
    GeneTriangles,
    Pentagons,
}

impl Part {
    fn suite(self) -> Suite {
        match self {
            Part::Animals | Part::Triangles | Part::Execution => Suite::Atomweave,
            Part::Cliques | Part::Transitive | Part::FiniteDomain => Suite::Mork,
            Part::GeneTriangles | Part::Pentagons => Suite::Genomics,
        }
    }
}

const ANIMALS: &str = r#"
(Inheritance (Concept "cat") (Concept "mammal"))
(Inheritance (Concept "dog") (Concept "mammal"))
(Inheritance (Concept "whale") (Concept "mammal"))
(Inheritance (Concept "sparrow") (Concept "bird"))
(Inheritance (Concept "eagle") (Concept "bird"))
(Inheritance (Concept "mammal") (Concept "animal"))
(Inheritance (Concept "bird") (Concept "animal"))
"#;

pub fn bench(args: QueryBenchArgs) -> Result<(), String> {
    if args.threads == 0 {
        return Err("-T needs at least one thread".into());
    }
    if let Some(only) = args.only.filter(|o| o.suite() != args.suite) {
        use clap::ValueEnum;
        let name = |p: &Part| p.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
        let theirs: Vec<String> = Part::value_variants().iter().filter(|p| p.suite() == args.suite).map(name).collect();
        return Err(format!("--only {}: not a part of this suite, whose parts are {}", name(&only), theirs.join(", ")));
    }
    let run = |p: Part| args.only.is_none_or(|o| o == p);
    if args.suite == Suite::Mork {
        let pools = Pools::new(&args)?;
        return mork::run(&args, &pools, run);
    }
    if args.suite == Suite::Genomics {
        return genomics::run(&args, run);
    }
    if run(Part::Animals) {
        animals(args.iterations)?;
    }
    if run(Part::Triangles) {
        triangles(&args)?;
    }
    if run(Part::Execution) {
        execution()?;
    }
    Ok(())
}

/// A grounded predicate in Rust (`bench:long`): true of a node whose name
/// is longer than 8 bytes. Measures what the engine spends per callback
/// (the scratch frame, the call), apart from any language's own cost.
struct BenchProcedures;

impl atomweave::query::grounded::Procedures for BenchProcedures {
    fn call(&self, space: &AtomSpace, _name: &str, args: &[atomweave::Handle]) -> atomweave::Result<atomweave::Value> {
        let long = args.first().and_then(|&a| space.name(a)).is_some_and(|n| n.len() > 8);
        Ok(atomweave::Value::Truth(atomweave::TruthValue::simple(if long { 1.0 } else { 0.0 }, 1.0)))
    }
}

/// Execution over 1,000 groundings or elements: a PutLink over a GetLink's
/// results, a grounded predicate per grounding, arithmetic over
/// FloatValues, a FilterLink with a Rule over a LinkValue.
fn execution() -> Result<(), String> {
    const N: usize = 1000;
    const RUNS: usize = 200;
    atomweave::query::grounded::register("bench", std::sync::Arc::new(BenchProcedures));
    let space = AtomSpace::new();
    let mut data = String::new();
    for i in 0..N {
        data.push_str(&format!("(Member (Concept \"item number {i}\") (Concept \"set\"))\n"));
    }
    let floats = (0..N).map(|i| i.to_string()).collect::<Vec<_>>().join(" ");
    data.push_str(&format!("(Concept \"a\" (alist (cons (Predicate \"k\") (FloatValue {floats}))))\n"));
    let items = (0..N).map(|i| format!("(FloatValue {i})")).collect::<Vec<_>>().join(" ");
    data.push_str(&format!("(Concept \"b\" (alist (cons (Predicate \"k\") (LinkValue {items}))))\n"));
    sexpr::load_str(&mut &space, &data).map_err(|e| e.to_string())?;
    let cases = [
        ("Put over a Get", r#"(Put (Evaluation (Predicate "in") (Variable "$x")) (Get (Member (Variable "$x") (Concept "set"))))"#),
        (
            "bench: per grounding",
            r#"(Get (And (Member (Variable "$x") (Concept "set")) (Evaluation (GroundedPredicate "bench:long") (List (Variable "$x")))))"#,
        ),
        ("FloatValue arithmetic", r#"(Plus (FloatValueOf (Concept "a") (Predicate "k")) (Times (FloatValueOf (Concept "a") (Predicate "k")) (Number 2)))"#),
        (
            "Filter with a Rule",
            r#"(Filter (Rule (TypedVariable (Variable "$f") (Type "FloatValue")) (Variable "$f") (Plus (Variable "$f") (Number 1))) (ValueOf (Concept "b") (Predicate "k")))"#,
        ),
    ];
    println!("execution: {N} groundings or elements, each case executed {RUNS} times, one thread");
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    for (name, text) in cases {
        let q = sexpr::load_str(&mut &space, text).map_err(|e| e.to_string())?[0];
        execute(&space, q).map_err(|e| e.to_string())?;
        let start = Instant::now();
        single.install(|| -> Result<(), String> {
            for _ in 0..RUNS {
                std::hint::black_box(execute(&space, q).map_err(|e| e.to_string())?);
            }
            Ok(())
        })?;
        let ms = start.elapsed().as_secs_f64() * 1e3 / RUNS as f64;
        println!("  {name:<22} {ms:>8.3} ms/run  {:>7.2} us per grounding or element", ms * 1e3 / N as f64);
    }
    Ok(())
}

fn animals(iterations: usize) -> Result<(), String> {
    let space = AtomSpace::new();
    sexpr::load_str(&mut &space, ANIMALS).map_err(|e| e.to_string())?;
    let queries = [
        ("GetLink", r#"(Get (TypedVariable (Variable "$x") (Type "ConceptNode")) (Inheritance (Variable "$x") (Concept "mammal")))"#),
        ("BindLink", ANIMALS_BIND),
    ];
    println!("animals: 7 InheritanceLinks, each query executed {iterations} times, one thread");
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    for (name, text) in queries {
        let q = sexpr::load_str(&mut &space, text).map_err(|e| e.to_string())?[0];
        let first = execute(&space, q).map_err(|e| e.to_string())?;
        let start = Instant::now();
        single.install(|| -> Result<(), String> {
            for _ in 0..iterations {
                std::hint::black_box(execute(&space, q).map_err(|e| e.to_string())?);
            }
            Ok(())
        })?;
        let us = start.elapsed().as_secs_f64() * 1e6 / iterations.max(1) as f64;
        println!("  {name:<9} {us:>8.2} us/query   {}", show(&space, &first)?.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    Ok(())
}

/// Runs of each graph query (and of its direct count): the best is reported.
const ROUNDS: usize = 5;

/// A graph query's direct count, over each gene's sorted higher neighbours.
type DirectCount = fn(&[Vec<u32>]) -> usize;

/// The graph queries (triangles, 4-cliques, 3-hop paths) on a random gene
/// interaction graph, each on one thread and on `-T`, checked against a
/// direct count.
fn triangles(args: &QueryBenchArgs) -> Result<(), String> {
    let space = AtomSpace::new();
    let higher = interaction_graph(&space, args)?;
    let pools = Pools::new(args)?;
    for (name, text, direct) in graph_queries() {
        let count = Direct::count(&higher, direct);
        let q = sexpr::load_str(&mut &space, &text).map_err(|e| e.to_string())?[0];
        println!("  {name}: direct count {} in {:.3} s (sorting the neighbour lists included)", count.expected, count.secs);
        time_graph_query(&space, q, name, &count, &pools)?;
    }
    Ok(())
}

/// Adds `--nodes` genes and `--edges` random interactions between them;
/// each gene's neighbours of higher number, the direction edges are
/// stored in.
fn interaction_graph(space: &AtomSpace, args: &QueryBenchArgs) -> Result<Vec<Vec<u32>>, String> {
    use atomweave::types;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    let max_edges = args.nodes.saturating_mul(args.nodes.saturating_sub(1)) / 2;
    if args.edges > max_edges {
        return Err(format!("{} nodes hold at most {max_edges} edges", args.nodes));
    }
    let err = |e: atomweave::Error| e.to_string();
    let genes: Vec<Handle> = (0..args.nodes).map(|i| space.add_node(types::CONCEPT_NODE, &format!("gene-{i}"))).collect::<Result<_, _>>().map_err(err)?;
    let interacts = space.add_node(types::PREDICATE_NODE, "interacts").map_err(err)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let mut higher: Vec<Vec<u32>> = vec![Vec::new(); args.nodes];
    let mut edges = std::collections::HashSet::new();
    let start = Instant::now();
    while edges.len() < args.edges {
        let (a, b) = (rng.gen_range(0..args.nodes), rng.gen_range(0..args.nodes));
        let (a, b) = (a.min(b), a.max(b));
        if a == b || !edges.insert((a, b)) {
            continue;
        }
        higher[a].push(b as u32);
        // Stored with the lower-numbered gene first, so each clique grounds its pattern once.
        let pair = space.add_link(types::LIST_LINK, &[genes[a], genes[b]]).map_err(err)?;
        space.add_link(types::EVALUATION_LINK, &[interacts, pair]).map_err(err)?;
    }
    let built = start.elapsed().as_secs_f64();
    println!("graph: {} genes, {} interactions (built in {built:.2} s), each query checked against a direct count", args.nodes, args.edges);
    Ok(higher)
}

/// The graph queries: name, Atomese text (a Meet) and direct count.
fn graph_queries() -> [(&'static str, String, DirectCount); 3] {
    let edge = |x: &str, y: &str| format!("(Evaluation (Predicate \"interacts\") (List (Variable \"${x}\") (Variable \"${y}\")))");
    let meet = |vars: &[&str], clauses: Vec<String>| {
        let vars: String = vars.iter().map(|v| format!("(Variable \"${v}\")")).collect();
        format!("(Meet (VariableList {vars}) (And {}))", clauses.join(" "))
    };
    let triangle = meet(&["a", "b", "c"], vec![edge("a", "b"), edge("b", "c"), edge("a", "c")]);
    let four = meet(&["a", "b", "c", "d"], vec![edge("a", "b"), edge("a", "c"), edge("a", "d"), edge("b", "c"), edge("b", "d"), edge("c", "d")]);
    let path = meet(&["b", "c", "d"], vec![edge("a", "b").replace("(Variable \"$a\")", "(Concept \"gene-0\")"), edge("b", "c"), edge("c", "d")]);
    [("triangles", triangle, count_triangles), ("4-cliques", four, count_four_cliques), ("3-hop paths from gene-0", path, count_paths_from_first)]
}

/// The graph queries' thread pools, one thread and `-T`, made once: a new
/// pool's threads take their first page faults on the first query.
struct Pools {
    one: rayon::ThreadPool,
    many: rayon::ThreadPool,
    threads: usize,
}

impl Pools {
    /// Makes the pools and says where their workers run. Each worker is
    /// kept to a core of its own: a guest kernel that packs short-lived
    /// threads onto one virtual CPU (as this project's VMs do) otherwise
    /// runs a 10 ms query's two threads in turns on one core, in some runs
    /// and not others (docs/BENCHMARKS.md, 27 November 2026). Not with more
    /// threads than cores: two pinned to one could not move.
    fn new(args: &QueryBenchArgs) -> Result<Pools, String> {
        let cores = crate::sys::allowed_cores().unwrap_or(0);
        let pin = !args.no_pin && args.threads <= cores;
        let unpinned = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let pool = |n| {
            let unpinned = unpinned.clone();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .start_handler(move |i| {
                    if !pin {
                        return;
                    }
                    if let Err(e) = crate::sys::pin_to_core(i) {
                        unpinned.lock().unwrap_or_else(|p| p.into_inner()).push(format!("worker {i}: {e}"));
                    }
                })
                .build()
                .map_err(|e| e.to_string())?;
            // Every worker has started (and tried its core) once each has run this.
            pool.broadcast(|_| ());
            Ok::<_, String>(pool)
        };
        let (one, many) = (pool(1)?, pool(args.threads)?);
        let unpinned = unpinned.lock().unwrap_or_else(|p| p.into_inner()).join("; ");
        let threads = if args.no_pin {
            "left to the scheduler (--no-pin)".to_string()
        } else if !pin {
            format!("left to the scheduler: {} threads, {cores} cores", args.threads)
        } else if !unpinned.is_empty() {
            format!("left to the scheduler where they could not be kept to a core ({unpinned})")
        } else {
            "each kept on a core of its own (--no-pin: not)".to_string()
        };
        println!("  worker threads {threads}, woken before each timed run");
        Ok(Pools { one, many, threads: args.threads })
    }
}

/// A direct count: its result and its best time.
struct Direct {
    expected: usize,
    secs: f64,
}

impl Direct {
    /// The best of [`ROUNDS`] runs of `direct`, which works on sorted
    /// neighbour lists: sorting them is part of its time.
    fn count(higher: &[Vec<u32>], direct: DirectCount) -> Direct {
        let (mut expected, mut secs) = (0, f64::INFINITY);
        for _ in 0..ROUNDS {
            let mut lists = higher.to_vec();
            let start = Instant::now();
            lists.iter_mut().for_each(|n| n.sort_unstable());
            expected = direct(&lists);
            secs = secs.min(start.elapsed().as_secs_f64());
        }
        Direct { expected, secs }
    }
}

/// Times the graph query `q`, checking each result against the direct
/// count. The best of each run, taking turns, so none gets the warmer
/// caches: the matcher's choice on 1 and on N threads, and its
/// backtracking search alone on one (two rounds: it is slow), for
/// comparison.
fn time_graph_query(space: &AtomSpace, q: Handle, name: &str, direct: &Direct, pools: &Pools) -> Result<(), String> {
    let mut best = [f64::INFINITY; 3];
    let runs = [(&pools.one, 1, Strategy::Auto), (&pools.many, pools.threads, Strategy::Auto), (&pools.one, 1, Strategy::Backtrack)];
    for round in 0..ROUNDS {
        for (i, (pool, threads, strategy)) in runs.into_iter().enumerate() {
            if strategy == Strategy::Backtrack && round >= 2 {
                continue;
            }
            // The pool's threads woken first: under a hypervisor, a core
            // idle for some milliseconds (as this pool's are while the
            // others run) can take 1.5-2 ms to wake, once per thread
            // (docs/BENCHMARKS.md, 27 November 2026), a cost of the
            // machine, not of the query.
            pool.broadcast(|_| ());
            let start = Instant::now();
            let result = pool.install(|| with_strategy(strategy, || execute(space, q))).map_err(|e| e.to_string())?;
            best[i] = best[i].min(start.elapsed().as_secs_f64());
            let found = groundings(name, &result)?;
            if found != direct.expected {
                return Err(format!("the pattern matcher found {found} {name} with {threads} threads, the direct count {}", direct.expected));
            }
            if round == 1 && strategy == Strategy::Backtrack {
                println!("    backtracking alone, -T 1  {:>8.3} s  ({:.1}x the direct count's time)", best[i], best[i] / direct.secs.max(1e-9));
            } else if round == ROUNDS - 1 {
                println!(
                    "    -T {threads}  {:>8.3} s  {found} {name}, as the direct count  ({:.2}x one thread, {:.1}x the direct count's time)",
                    best[i],
                    best[0] / best[i],
                    best[i] / direct.secs.max(1e-9)
                );
            }
        }
    }
    Ok(())
}

/// How many groundings a graph query found: a Meet gives them in a
/// QueueValue, as upstream's.
fn groundings(name: &str, result: &Executed) -> Result<usize, String> {
    match result {
        Executed::Value(atomweave::Value::Queue(items)) => Ok(items.len()),
        Executed::Value(v) => Err(format!("the {name} query gave a {} where a QueueValue was expected", v.value_type().name())),
        Executed::Atom(_) => Err(format!("the {name} query gave an atom where a QueueValue was expected")),
    }
}

/// The common members of two sorted lists.
fn common(x: &[u32], y: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Triangles a < b < c: for each edge (a, b), the higher neighbours both share.
fn count_triangles(higher: &[Vec<u32>]) -> usize {
    (0..higher.len()).flat_map(|a| higher[a].iter().map(move |&b| (a, b as usize))).map(|(a, b)| common(&higher[a], &higher[b]).len()).sum()
}

/// 4-cliques a < b < c < d: for each triangle, the higher neighbours all three share.
fn count_four_cliques(higher: &[Vec<u32>]) -> usize {
    let mut count = 0;
    for a in 0..higher.len() {
        for &b in &higher[a] {
            let ab = common(&higher[a], &higher[b as usize]);
            for &c in &ab {
                count += common(&ab, &higher[c as usize]).len();
            }
        }
    }
    count
}

/// Paths gene-0 -> b -> c -> d along the stored direction (each to a higher number).
fn count_paths_from_first(higher: &[Vec<u32>]) -> usize {
    let Some(first) = higher.first() else { return 0 };
    first.iter().flat_map(|&b| &higher[b as usize]).map(|&c| higher[c as usize].len()).sum()
}
