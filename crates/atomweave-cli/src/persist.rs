//! Storage commands: `load --to`, `dump --from`, `copy`, `persist-bench`.

use std::time::Instant;

use atomweave::{types, AtomSpace, Handle, TruthValue};
use atomweave_store::StorageNode;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::sys;

fn bar(len: u64, what: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} atoms {per_sec} eta {eta}").expect("valid template").progress_chars("=> "));
    bar.set_message(what.to_string());
    bar
}

pub fn open(url: &str) -> Result<Box<dyn StorageNode>, String> {
    atomweave_store::open(url).map_err(|e| e.to_string())
}

/// Stores the whole space at `url`, with a progress bar; returns atoms stored.
pub fn store_all(space: &AtomSpace, url: &str, quiet: bool) -> Result<u64, String> {
    let mut store = open(url)?;
    let b = bar(space.size() as u64, &format!("storing to {url}"), quiet);
    let n = store.store_atomspace(space, &mut |n| b.set_position(n)).map_err(|e| e.to_string())?;
    store.close().map_err(|e| e.to_string())?;
    b.finish_and_clear();
    Ok(n)
}

/// Loads the whole store at `url`, which must exist, into `space`, with a progress bar.
pub fn load_all(space: &AtomSpace, url: &str, quiet: bool) -> Result<u64, String> {
    let mut store = atomweave_store::open_existing(url).map_err(|e| e.to_string())?;
    let b = bar(0, &format!("loading from {url}"), quiet);
    let n = store.load_atomspace(space, &mut |n| b.set_position(n)).map_err(|e| e.to_string())?;
    store.close().map_err(|e| e.to_string())?;
    b.finish_and_clear();
    Ok(n)
}

pub fn copy(src: &str, dst: &str, quiet: bool) -> Result<(), String> {
    let space = AtomSpace::new();
    let start = Instant::now();
    let loaded = load_all(&space, src, quiet)?;
    let stored = store_all(&space, dst, quiet)?;
    println!("copied {loaded} atoms from {src} to {dst} ({stored} stored) in {:.2} s", start.elapsed().as_secs_f64());
    Ok(())
}

#[derive(Args)]
pub struct PersistBenchArgs {
    /// EvaluationLink structures (four atoms each, words shared).
    #[arg(short = 'n', default_value_t = 1_000_000)]
    n: usize,
    /// Store to benchmark.
    #[arg(long, value_enum, default_value_t = Backend::Lmdb)]
    backend: Backend,
    /// Words to draw from.
    #[arg(long, default_value_t = 100_000)]
    words: usize,
    /// Directory for the LMDB or RocksDB store (default: a fresh temporary one, removed after).
    #[arg(long)]
    dir: Option<std::path::PathBuf>,
    /// PostgreSQL database to use, which must hold no atomweave store yet
    /// (default: a scratch server started from Debian's postgresql
    /// binaries, with its default, durable settings, removed after).
    #[arg(long, value_name = "postgres://...")]
    url: Option<String>,
    /// Random seed.
    #[arg(short = 'R', default_value_t = 1)]
    seed: u64,
    /// No progress bars.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Copy, Clone, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    Lmdb,
    Postgres,
    /// Upstream's RocksDB layout (`rocks://`); its table adds a copy into LMDB.
    Rocks,
    /// One scratch `redis-server` on loopback (`redis://`).
    Redis,
    /// A scratch Redis Cluster on loopback: 3 masters, 3 replicas (`redis+cluster://`).
    RedisCluster,
}

struct Phase {
    name: &'static str,
    atoms: u64,
    secs: f64,
    cpu: f64,
    server_cpu: Option<f64>,
}

/// The store under test: where it is, its size on disk, its server process.
struct Target {
    url: String,
    backend: Backend,
    /// The server's processes, when they run on this machine: the
    /// PostgreSQL server's main process; a scratch Redis's every node.
    server_pids: Vec<u32>,
}

impl Target {
    fn disk_bytes(&self) -> Result<u64, String> {
        let r = match self.backend {
            Backend::Lmdb => {
                let dir = self.url.strip_prefix("lmdb://").unwrap_or(&self.url);
                atomweave_store::lmdb::LmdbStore::open(&self.url, dir).and_then(|s| s.disk_bytes())
            }
            Backend::Postgres => atomweave_store::pg::PgStore::open(&self.url, false).and_then(|mut s| s.disk_bytes()),
            Backend::Rocks => return Ok(dir_bytes(std::path::Path::new(self.url.strip_prefix("rocks://").unwrap_or(&self.url)))),
            Backend::Redis | Backend::RedisCluster => atomweave_store::redis::RedisStore::open(&self.url).and_then(|s| s.usage()).map(|(_, bytes)| bytes),
        };
        r.map_err(|e| e.to_string())
    }

    /// CPU seconds of the server: each of its processes and their children
    /// (PostgreSQL's backends, Redis's rewrites of its files), live or ended.
    fn server_cpu(&self) -> Option<f64> {
        if self.server_pids.is_empty() {
            return None;
        }
        let mut total = 0.0;
        for &pid in &self.server_pids {
            total += sys::cpu_seconds_with_children(pid)?;
            for child in sys::children(pid) {
                total += sys::cpu_seconds(&child.to_string()).unwrap_or(0.0);
            }
        }
        Some(total)
    }
}

/// Bytes the files directly in `dir` take.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map(|d| d.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum()).unwrap_or(0)
}

/// The seed's table: store N `(EvaluationLink (PredicateNode ..) (ListLink
/// (WordNode ..) (WordNode ..)))` with truth values on the links and words,
/// load them into an empty space, update all their values.
pub fn bench(args: PersistBenchArgs) -> Result<(), String> {
    match args.backend {
        Backend::Lmdb | Backend::Rocks => {
            let tmp;
            let dir = match &args.dir {
                Some(d) => d.clone(),
                None => {
                    tmp = std::env::temp_dir().join(format!("atomweave-persist-bench-{}", std::process::id()));
                    tmp.clone()
                }
            };
            if args.dir.is_some() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) {
                return Err(format!("{}: not empty; persist-bench writes a new store, give it a new or empty directory", dir.display()));
            }
            let scheme = if args.backend == Backend::Rocks { "rocks" } else { "lmdb" };
            let target = Target { url: format!("{scheme}://{}", dir.display()), backend: args.backend, server_pids: Vec::new() };
            let result = run(&args, &target);
            if args.dir.is_none() {
                let _ = std::fs::remove_dir_all(&dir);
            }
            result
        }
        Backend::Postgres => {
            let scratch;
            let url = match &args.url {
                Some(u) => u.clone(),
                None => {
                    if !args.quiet {
                        eprintln!("persist-bench: starting a scratch PostgreSQL server (give --url to use your own)");
                    }
                    scratch = atomweave_store::pg::scratch_server::ScratchServer::start(true).map_err(|e| e.to_string())?;
                    scratch.url()
                }
            };
            if atomweave_store::pg::PgStore::open(&url, false).is_ok() {
                return Err(format!("{url}: holds an atomweave store already; persist-bench writes a new store, give it an empty database"));
            }
            let mut probe = atomweave_store::pg::PgStore::open(&url, true).map_err(|e| e.to_string())?;
            let backend = probe.backend_pid().map_err(|e| e.to_string())?;
            let target = Target { url, backend: Backend::Postgres, server_pids: sys::parent(backend).into_iter().collect() };
            drop(probe);
            run(&args, &target)
        }
        Backend::Redis | Backend::RedisCluster => {
            use atomweave_store::redis::scratch::Scratch;
            let cluster = args.backend == Backend::RedisCluster;
            if !args.quiet {
                eprintln!("persist-bench: starting a scratch Redis {} on loopback", if cluster { "cluster (3 masters, 3 replicas)" } else { "server" });
            }
            let scratch = if cluster { Scratch::cluster(3, 1) } else { Scratch::single() }.map_err(|e| e.to_string())?;
            let target = Target { url: scratch.url(""), backend: args.backend, server_pids: scratch.pids() };
            let empty = target.disk_bytes()?;
            run_from(&args, &target, empty)
        }
    }
}

fn cpu() -> f64 {
    sys::cpu_seconds("self").unwrap_or(f64::NAN)
}

fn timed(name: &'static str, atoms: u64, target: &Target, f: impl FnOnce() -> Result<(), String>) -> Result<Phase, String> {
    let (t0, c0, s0) = (Instant::now(), cpu(), target.server_cpu());
    f()?;
    let server_cpu = s0.zip(target.server_cpu()).map(|(a, b)| b - a);
    Ok(Phase { name, atoms, secs: t0.elapsed().as_secs_f64(), cpu: cpu() - c0, server_cpu })
}

fn run(args: &PersistBenchArgs, target: &Target) -> Result<(), String> {
    run_from(args, target, 0)
}

/// The benchmark, where the store held `empty` bytes before it began.
fn run_from(args: &PersistBenchArgs, target: &Target, empty: u64) -> Result<(), String> {
    let url = target.url.as_str();
    let err = |e: atomweave::Error| e.to_string();
    let space = AtomSpace::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let words: Vec<Handle> = (0..args.words.max(2)).map(|i| space.add_node(types::WORD_NODE, &format!("word-{i}"))).collect::<Result<_, _>>().map_err(err)?;
    let preds: Vec<Handle> = (0..16).map(|i| space.add_node(types::PREDICATE_NODE, &format!("relation-{i}"))).collect::<Result<_, _>>().map_err(err)?;
    for &w in &words {
        space.set_tv(w, TruthValue::count(1.0, 0.5, rng.gen_range(1.0..100.0))).map_err(err)?;
    }
    let mut evals = Vec::with_capacity(args.n);
    let b = bar(args.n as u64, "building", args.quiet);
    while evals.len() < args.n {
        let (a, c) = (words[rng.gen_range(0..words.len())], words[rng.gen_range(0..words.len())]);
        let pair = space.add_link(types::LIST_LINK, &[a, c]).map_err(err)?;
        let e = space.add_link(types::EVALUATION_LINK, &[preds[rng.gen_range(0..preds.len())], pair]).map_err(err)?;
        space.set_tv(e, TruthValue::simple(rng.gen(), rng.gen())).map_err(err)?;
        evals.push(e);
        if evals.len() % 65536 == 0 {
            b.set_position(evals.len() as u64);
        }
    }
    b.finish_and_clear();
    let atoms = space.size() as u64;
    println!("persist-bench: {} EvaluationLink structures, {atoms} atoms ({} words), into {url}", args.n, words.len());

    let stored = timed("store", atoms, target, || store_all(&space, url, args.quiet).map(drop))?;
    let disk = target.disk_bytes()?.saturating_sub(empty);
    drop(space);

    // Loaded and updated through one StorageNode, as an application would:
    // it knows the atoms it loaded and writes their new values straight back.
    let loaded = AtomSpace::new();
    let mut store = atomweave_store::open_existing(url).map_err(|e| e.to_string())?;
    let load = timed("load", atoms, target, || {
        let b = bar(atoms, &format!("loading from {url}"), args.quiet);
        store.load_atomspace(&loaded, &mut |n| b.set_position(n)).map_err(|e| e.to_string())?;
        b.finish_and_clear();
        Ok(())
    })?;
    if loaded.size() as u64 != atoms {
        return Err(format!("loaded {} atoms of the {atoms} stored", loaded.size()));
    }

    // New truth values on every EvaluationLink and word, stored as values.
    let tv_key = loaded.add_node(types::PREDICATE_NODE, atomweave::sexpr::TV_KEY).map_err(err)?;
    let targets: Vec<Handle> = loaded.handles_by_type(types::EVALUATION_LINK, false).chain(loaded.handles_by_type(types::WORD_NODE, false)).collect();
    let updates = timed("update", targets.len() as u64, target, || {
        let b = bar(targets.len() as u64, "updating values", args.quiet);
        for (i, &h) in targets.iter().enumerate() {
            loaded.set_tv(h, TruthValue::simple(0.5, i as f64 / targets.len() as f64)).map_err(err)?;
            store.store_value(&loaded, h, tv_key).map_err(|e| e.to_string())?;
            if i % 65536 == 0 {
                b.set_position(i as u64);
            }
        }
        store.barrier().map_err(|e| e.to_string())?;
        b.finish_and_clear();
        Ok(())
    })?;
    store.close().map_err(|e| e.to_string())?;
    // Pieces fetched into an empty space, as a program working on part of
    // a store does: 1,000 random words' incoming sets, then every word.
    let pieces = AtomSpace::new();
    let mut store = atomweave_store::open_existing(url).map_err(|e| e.to_string())?;
    let incoming = timed("incoming", 1000, target, || {
        for _ in 0..1000 {
            let w = pieces.add_node(types::WORD_NODE, &format!("word-{}", rng.gen_range(0..args.words.max(2)))).map_err(err)?;
            store.fetch_incoming_set(&pieces, w, false).map_err(|e| e.to_string())?;
        }
        Ok(())
    })?;
    let words = args.words.max(2) as u64;
    let by_type = timed("by-type", words, target, || store.load_atoms_of_type(&pieces, types::WORD_NODE).map(drop).map_err(|e| e.to_string()))?;
    store.close().map_err(|e| e.to_string())?;
    let mut phases = vec![stored, load, updates, incoming, by_type];
    // Upstream's stores are read to leave them: `atomweave copy rocks:// lmdb://`.
    if target.backend == Backend::Rocks {
        let into = std::env::temp_dir().join(format!("atomweave-persist-bench-copy-{}", std::process::id()));
        let dst = format!("lmdb://{}", into.display());
        let copied = timed("copy", atoms, target, || {
            let space = AtomSpace::new();
            load_all(&space, url, args.quiet)?;
            store_all(&space, &dst, args.quiet).map(drop)
        });
        let _ = std::fs::remove_dir_all(&into);
        phases.push(copied?);
    }

    println!();
    println!("   phase        atoms    seconds        atoms/s   CPU s (atomweave)   CPU s (server)");
    println!("   (incoming: fetch-incoming-set of 1,000 random words, one call each; by-type: load-atoms-of-type WordNode)");
    for p in phases {
        let server = match (target.backend, p.server_cpu) {
            (Backend::Lmdb | Backend::Rocks, _) => "- (embedded)".to_string(),
            (_, Some(s)) => format!("{s:.2}"),
            (_, None) => "- (remote)".to_string(),
        };
        println!("   {:<8} {:>9} {:>10.2} {:>14.0} {:>19.2} {:>16}", p.name, p.atoms, p.secs, p.atoms as f64 / p.secs.max(1e-9), p.cpu, server);
    }
    if matches!(target.backend, Backend::Redis | Backend::RedisCluster) {
        println!(
            "\n   memory (the masters' used_memory, less the empty store's): {:.1} MiB, {:.1} bytes per atom per copy",
            disk as f64 / 1048576.0,
            disk as f64 / atoms as f64
        );
    } else {
        println!("\n   disk: {:.1} MiB, {:.1} bytes per atom", disk as f64 / 1048576.0, disk as f64 / atoms as f64);
    }
    Ok(())
}
