//! `atomweave read-through-bench`: a stored word-pair space
//! (`generate --shape pairs`, then `load --to lmdb://`) queried without
//! loading it: random incoming-set fetches and a two-clause join through
//! one word, each cold (a fresh space, the store's pages dropped from the
//! page cache) and warm (a fresh space, the pages cached), the peak
//! resident memory meanwhile, and, with `--loaded`, the same join over
//! the whole store loaded into memory.
//!
//! It measures; the scale benchmark (`scripts/bench-scale.sh`) runs it.

use std::path::Path;
use std::time::Instant;

use atomweave::query::{execute, Executed};
use atomweave::types::WORD_NODE;
use atomweave::{sexpr, AtomSpace};
use atomweave_store::{open_existing, read_through};
use clap::Args;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::generate::pairs;
use crate::sys::peak_rss_bytes;

#[derive(Args)]
pub struct ReadThroughArgs {
    /// The stored pairs: lmdb:///dir.
    #[arg(long, value_name = "URL")]
    from: String,
    /// How many words the pairs were drawn from (the generated file's first line says).
    #[arg(long)]
    words: usize,
    /// Incoming sets to fetch.
    #[arg(short = 'n', long, default_value_t = 1000)]
    fetches: usize,
    /// Random seed of the words fetched.
    #[arg(short = 'R', long, default_value_t = 1)]
    seed: u64,
    /// Also load the whole store and run the join over it in memory.
    #[arg(long)]
    loaded: bool,
}

/// The join: every (a, b) with both (a, x) and (x, b) counted.
fn join(x: &str) -> String {
    format!(
        r#"(Get (VariableList (Variable "$a") (Variable "$b")) (And (Evaluation (Predicate "ANY") (List (Variable "$a") (Word "{x}"))) (Evaluation (Predicate "ANY") (List (Word "{x}") (Variable "$b")))))"#
    )
}

pub fn run(args: ReadThroughArgs) -> Result<(), String> {
    if args.words == 0 {
        return Err("--words must be at least 1".into());
    }
    let dir = args.from.strip_prefix("lmdb://").ok_or("--from takes an LMDB store: lmdb:///dir")?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let words: Vec<String> = (0..args.fetches).map(|_| pairs::word(rng.gen_range(0..args.words))).collect();

    // The word to join through: of those fetched, the one whose pairs
    // are nearest 300 (a join of some 10^4 to 10^5 groundings).
    let mut x = String::new();
    for warm in [false, true] {
        let label = if warm { "warm" } else { "cold" };
        if !warm {
            drop_cached(dir)?;
        }
        let space = read_through::open_space(&args.from).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let mut links = 0;
        let mut nearest = usize::MAX;
        for w in &words {
            let h = space.add_node(WORD_NODE, w).map_err(|e| e.to_string())?;
            let n = space.incoming(h).map_or(0, |i| i.len());
            links += n;
            if !warm && n.abs_diff(300) < nearest {
                nearest = n.abs_diff(300);
                x.clone_from(w);
            }
        }
        let secs = t.elapsed().as_secs_f64();
        failed(&space)?;
        println!("fetches {label}  {} incoming sets, {links} links, in {:.1} ms ({:.1} us each)", words.len(), secs * 1e3, secs * 1e6 / words.len() as f64);
        drop(space);

        if !warm {
            drop_cached(dir)?;
        }
        let space = read_through::open_space(&args.from).map_err(|e| e.to_string())?;
        let (n, secs) = timed_join(&space, &x)?;
        failed(&space)?;
        println!("join    {label}  {n} groundings through {x:?} in {:.1} ms", secs * 1e3);
    }
    println!("peak    {:.0} MB resident", peak_rss_bytes() as f64 / 1048576.0);

    if args.loaded {
        let space = AtomSpace::new();
        let mut store = open_existing(&args.from).map_err(|e| e.to_string())?;
        store.load_atomspace(&space, &mut |_| {}).map_err(|e| e.to_string())?;
        store.close().map_err(|e| e.to_string())?;
        // The second run: the first adds the query's atoms.
        timed_join(&space, &x)?;
        let (n, secs) = timed_join(&space, &x)?;
        println!("join    loaded  {n} groundings through {x:?} in {:.1} ms", secs * 1e3);
    }
    Ok(())
}

/// The join through `x`: how many groundings, in how many seconds.
fn timed_join(space: &AtomSpace, x: &str) -> Result<(usize, f64), String> {
    let q = sexpr::load_str(&mut &*space, &join(x)).map_err(|e| e.to_string())?[0];
    let t = Instant::now();
    let r = execute(space, q).map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let n = match r {
        Executed::Atom(set) => space.arity(set).unwrap_or(0),
        Executed::Value(_) => return Err("the join gave a value, not a set".into()),
    };
    Ok((n, secs))
}

fn failed(space: &AtomSpace) -> Result<(), String> {
    space.take_backing_error().map_or(Ok(()), |e| Err(e.to_string()))
}

/// Drops the store's pages from the page cache (as after a reboot, for
/// this file): `posix_fadvise(DONTNEED)`, which needs no privilege.
fn drop_cached(dir: &str) -> Result<(), String> {
    let path = Path::new(dir).join("data.mdb");
    let f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: the descriptor is open for the call; the advice changes no data.
    let r = unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&f), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(format!("{}: posix_fadvise: {}", path.display(), std::io::Error::from_raw_os_error(r)));
    }
    Ok(())
}
