//! `query-bench --suite genomics`: upstream's genomics benchmark
//! (opencog/benchmark `query-loop/`) through Scheme, as its `bio-loop.scm`
//! runs it, on `generate --shape genomics`'s graph: the triangles through
//! each of 681 genes, and the pentagons of pathways (the short run's 12,
//! then every pathway of the listed genes, the long run's). Each count is
//! checked against the generator's direct count.
//!
//! The queries are `genomics.scm`'s, in the benchmark's words; the data are
//! loaded through Scheme too (`primitive-load` of each file, as the
//! benchmark's `load-data.scm` does).

use std::time::Instant;

use atomweave::AtomSpace;

use super::{Part, QueryBenchArgs};
use crate::generate::genomics::{Graph, SHORT_PATHWAYS};

/// Runs of the triangles and of the short pentagon run, as `bio-loop.scm`.
const ROUNDS: usize = 3;

pub fn run(args: &QueryBenchArgs, run: impl Fn(Part) -> bool) -> Result<(), String> {
    let graph = Graph::new(1.0 / f64::from(args.scale), args.seed);
    let dir = tempfile::tempdir().map_err(|e| format!("a directory for the data files: {e}"))?;
    graph.write(dir.path()).map_err(|e| format!("writing the data files: {e}"))?;
    println!(
        "genomics: {} atoms ({} genes, {} interaction lines, {} pathways), 1/{} of the full size, seed {}",
        graph.atoms(),
        graph.genes,
        graph.interactions.len(),
        graph.pathways,
        args.scale,
        args.seed
    );
    let space = AtomSpace::new();
    atomweave_guile::boot(space.clone());
    atomweave_guile::with_guile(|| -> Result<(), String> {
        atomweave_guile::run(include_str!("genomics.scm"))?;
        let start = Instant::now();
        atomweave_guile::run(&format!("(genomics-load {})", scheme_string(&dir.path().to_string_lossy())))?;
        println!("  {:<44} {:>9.3} s, {} atoms", "load (Scheme, primitive-load of each file)", start.elapsed().as_secs_f64(), space.size());
        let adjacency = graph.adjacency();
        if run(Part::GeneTriangles) {
            let direct = graph.triangles(&adjacency);
            let what = format!("triangles, {} genes", graph.gene_list.len());
            rounds(&what, ROUNDS, "(genomics-triangles)", &direct)?;
        }
        if run(Part::Pentagons) {
            let short: Vec<u64> = SHORT_PATHWAYS.iter().map(|n| graph.pathway_of(n).map_or(0, |p| graph.pentagons(&adjacency, p))).collect();
            let names: Vec<String> = SHORT_PATHWAYS.iter().map(|n| scheme_string(n)).collect();
            rounds("pentagons, the short run's 12 pathways", ROUNDS, &format!("(genomics-pentagons (list {}))", names.join(" ")), &short)?;
            let mut paths: Vec<(String, u32)> = graph.gene_list_pathways().into_iter().map(|p| (graph.pathway_name(p), p)).collect();
            paths.sort();
            // Found before the clock starts, as the benchmark's long run does.
            atomweave_guile::run("(define genomics-pathways (genomics-gene-pathways))")?;
            let printed = atomweave_guile::eval("genomics-pathways")?;
            // The printed list's strings (pathway names hold no quotes).
            let listed: Vec<&str> = printed.split('"').skip(1).step_by(2).collect();
            if !listed.iter().copied().eq(paths.iter().map(|(n, _)| n.as_str())) {
                return Err(format!("the listed genes' pathways: the query found {} ({printed}), the direct count {}", listed.len(), paths.len()));
            }
            let long: Vec<u64> = paths.iter().map(|&(_, p)| graph.pentagons(&adjacency, p)).collect();
            rounds(&format!("pentagons, the listed genes' {} pathways", paths.len()), 1, "(genomics-pentagons genomics-pathways)", &long)?;
        }
        Ok(())
    })
}

/// Evaluates `code` (a list of counts) `n` times, checks each run's
/// counts against `direct`, and prints the times and the total.
fn rounds(what: &str, n: usize, code: &str, direct: &[u64]) -> Result<(), String> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let found = atomweave_guile::eval(code)?;
        times.push(start.elapsed().as_secs_f64());
        let counts: Vec<u64> = found
            .trim()
            .trim_matches(|c| c == '(' || c == ')')
            .split_whitespace()
            .map(|w| w.parse().map_err(|_| format!("{what}: not a count list: {found}")))
            .collect::<Result<_, _>>()?;
        if counts != direct {
            let first = counts.iter().zip(direct).position(|(a, b)| a != b).unwrap_or(counts.len().min(direct.len()));
            return Err(format!(
                "{what}: the queries found {} results, the direct count {} (first difference at item {first}: {:?} against {:?})",
                counts.iter().sum::<u64>(),
                direct.iter().sum::<u64>(),
                counts.get(first),
                direct.get(first)
            ));
        }
    }
    let shown: Vec<String> = times.iter().map(|t| format!("{t:.3}")).collect();
    times.sort_by(f64::total_cmp);
    println!("  {what:<44} {:>9.3} s median ({} s), {} results, as the direct count", times[times.len() / 2], shown.join(", "), direct.iter().sum::<u64>());
    Ok(())
}

/// `text` as a Scheme string literal.
fn scheme_string(text: &str) -> String {
    let mut out = String::new();
    atomweave::sexpr::write_str_literal(&mut out, text);
    out
}
