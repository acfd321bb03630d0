//! `atomweave atom-bench`: the seeds' paged-storage experiment (`atom_bench`)
//! as a first-class benchmark. Untimed: `--concepts` ConceptNodes. Timed:
//! `-n` structures `(EvaluationLink (PredicateNode "P") (ListLink a b))` over
//! random concepts a, b, then searches for a pair that is present and one
//! that is absent, through incoming sets and by full traversal.

use std::hint::black_box;
use std::time::Instant;

use atomweave::{types, AtomSpace, Handle, LinkBatch};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::json;

use crate::sys::rss_bytes;

/// Arguments of `atomweave atom-bench`.
#[derive(clap::Args, Debug)]
pub struct AtomBenchArgs {
    /// ConceptNodes made before the clock starts.
    #[arg(long, default_value_t = 100_000)]
    concepts: usize,
    /// EvaluationLink structures to insert (two links each).
    #[arg(short = 'n', default_value_t = 1_000_000)]
    n: usize,
    /// Insert from this many threads at once.
    #[arg(short = 'T', default_value_t = 1)]
    threads: usize,
    /// Links added per call: with more than 1, structures go in through
    /// `AtomSpace::add_links`, each batch's ListLinks and then their
    /// EvaluationLinks; with 1, one `add_link` call per link.
    #[arg(long, default_value_t = 1024)]
    batch: usize,
    /// Searches of each kind through incoming sets.
    #[arg(long, default_value_t = 100_000)]
    searches: usize,
    /// Random seed.
    #[arg(short = 'R', default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Is `(EvaluationLink p (ListLink a b))` in the space? Walks incoming sets:
/// the ListLinks holding `a`, then the EvaluationLinks holding the match.
fn find_by_incoming(space: &AtomSpace, p: Handle, a: Handle, b: Handle) -> bool {
    let Some(inc) = space.incoming(a) else { return false };
    inc.iter().any(|&list| {
        space.get_type(list) == Some(types::LIST_LINK)
            && space.outgoing(list).is_some_and(|o| *o == [a, b])
            && space
                .incoming(list)
                .is_some_and(|up| up.iter().any(|&e| space.get_type(e) == Some(types::EVALUATION_LINK) && space.outgoing(e).is_some_and(|o| *o == [p, list])))
    })
}

/// The same question answered by reading every EvaluationLink.
fn find_by_traversal(space: &AtomSpace, p: Handle, a: Handle, b: Handle) -> bool {
    let view = space.read().expect("a root space without children");
    use atomweave::AtomRead;
    let found = view.handles_by_type(types::EVALUATION_LINK, false).any(|e| match view.outgoing(e) {
        Some(&[pred, list]) => pred == p && view.outgoing(list) == Some(&[a, b][..]),
        _ => false,
    });
    found
}

pub fn run(args: AtomBenchArgs) -> Result<(), String> {
    if args.concepts < 2 || args.threads == 0 || args.batch == 0 {
        return Err("--concepts must be at least 2, and -T and --batch at least 1".into());
    }
    let rss0 = rss_bytes();
    let space = AtomSpace::new();
    let e = |e: atomweave::Error| e.to_string();
    let p = space.add_node(types::PREDICATE_NODE, "P").map_err(e)?;
    let concepts: Vec<Handle> =
        (0..args.concepts).map(|i| space.add_node(types::CONCEPT_NODE, &format!("concept {i}"))).collect::<Result<_, _>>().map_err(e)?;

    // Random pairs, drawn before the clock starts; thread t inserts every T-th one.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(args.seed);
    let pairs: Vec<(Handle, Handle)> = (0..args.n).map(|_| (concepts[rng.gen_range(0..concepts.len())], concepts[rng.gen_range(0..concepts.len())])).collect();
    let (insert_secs, inserted) = super::together(args.threads, |t| -> atomweave::Result<()> {
        let mine = pairs.iter().skip(t).step_by(args.threads);
        if args.batch == 1 {
            for &(a, b) in mine {
                let list = space.add_link(types::LIST_LINK, &[a, b])?;
                space.add_link(types::EVALUATION_LINK, &[p, list])?;
            }
            return Ok(());
        }
        let (mut lists, mut evals) = (LinkBatch::new(), LinkBatch::new());
        let mine: Vec<_> = mine.collect();
        for chunk in mine.chunks(args.batch) {
            lists.clear();
            evals.clear();
            for &&(a, b) in chunk {
                lists.push(types::LIST_LINK, &[a, b]);
            }
            for list in space.add_links(&lists)? {
                evals.push(types::EVALUATION_LINK, &[p, list]);
            }
            space.add_links(&evals)?;
        }
        Ok(())
    });
    inserted.into_iter().collect::<atomweave::Result<()>>().map_err(e)?;
    let rss = rss_bytes().saturating_sub(rss0);
    let atoms = space.size();

    // Present pairs come from the inserted ones; absent ones are checked absent.
    let present: Vec<(Handle, Handle)> = (0..args.searches).map(|_| pairs[rng.gen_range(0..pairs.len().max(1))]).collect();
    let mut absent = Vec::with_capacity(args.searches);
    while absent.len() < args.searches {
        let (a, b) = (concepts[rng.gen_range(0..concepts.len())], concepts[rng.gen_range(0..concepts.len())]);
        if space.get_link(types::LIST_LINK, &[a, b]).is_none() {
            absent.push((a, b));
        }
    }
    let time_index = |set: &[(Handle, Handle)], want: bool| -> Result<f64, String> {
        let start = Instant::now();
        for &(a, b) in set {
            if black_box(find_by_incoming(&space, p, a, b)) != want {
                return Err(format!("search through incoming sets answered wrongly for ({a}, {b})"));
            }
        }
        Ok(start.elapsed().as_secs_f64() / set.len().max(1) as f64)
    };
    let index_present = time_index(&present, true)?;
    let index_absent = time_index(&absent, false)?;
    let time_scan = |(a, b): (Handle, Handle), want: bool| -> Result<f64, String> {
        let start = Instant::now();
        if black_box(find_by_traversal(&space, p, a, b)) != want {
            return Err(format!("full traversal answered wrongly for ({a}, {b})"));
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let scan_present = time_scan(present[0], true)?;
    let scan_absent = time_scan(absent[0], false)?;

    let us_per_insert = insert_secs * 1e6 / args.n.max(1) as f64;
    let per_atom_rss = rss as f64 / atoms as f64;
    let per_atom_counted = space.heap_bytes() as f64 / atoms as f64;
    if args.json {
        let doc = json!({
            "concepts": args.concepts, "structures": args.n, "threads": args.threads, "batch": args.batch,
            "insert_seconds": insert_secs, "us_per_structure": us_per_insert,
            "atoms": atoms, "nodes": space.num_nodes(), "links": space.num_links(),
            "rss_bytes": rss, "bytes_per_atom_rss": per_atom_rss, "bytes_per_atom_counted": per_atom_counted,
            "search_index_present_us": index_present * 1e6, "search_index_absent_us": index_absent * 1e6,
            "search_traversal_present_ms": scan_present * 1e3, "search_traversal_absent_ms": scan_absent * 1e3,
        });
        println!("{}", serde_json::to_string_pretty(&doc).expect("serializable"));
        return Ok(());
    }
    let mode = if args.batch == 1 { "one add_link call per link".to_string() } else { format!("add_links in batches of {}", args.batch) };
    println!(
        "atom-bench: {} concepts, {} EvaluationLink structures (two links each), {} insert thread{}, {mode}",
        args.concepts,
        args.n,
        args.threads,
        if args.threads == 1 { "" } else { "s" }
    );
    println!(
        "insert          {us_per_insert:.3} us per structure ({:.2} M structures/s, {:.2} M links/s)",
        args.n as f64 / insert_secs / 1e6,
        2.0 * args.n as f64 / insert_secs / 1e6
    );
    println!("atoms           {atoms} ({} nodes, {} links)", space.num_nodes(), space.num_links());
    println!("memory          {:.1} MiB resident: {per_atom_rss:.1} bytes per atom ({per_atom_counted:.1} by the space's count)", rss as f64 / 1048576.0);
    println!("search present  {:.3} us through incoming sets (mean of {}), {:.1} ms by full traversal", index_present * 1e6, args.searches, scan_present * 1e3);
    println!("search absent   {:.3} us through incoming sets (mean of {}), {:.1} ms by full traversal", index_absent * 1e6, args.searches, scan_absent * 1e3);
    println!("seed figures    upstream AtomSpace 25 us and ~1.4 KB per atom; paged prototype 1.3 us and ~117 bytes per atom");
    Ok(())
}
