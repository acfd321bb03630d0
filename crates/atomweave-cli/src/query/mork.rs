//! `query-bench --suite mork`: the query workloads of MORK's kernel
//! benchmarks (`mork bench`, trueagi-io/MORK `kernel/src/main.rs`) as
//! Atomese, each result checked against a direct computation.
//!
//! The data are MORK's own: its generator (`rand` 0.9's `StdRng` seeded
//! with 32 zero bytes), its draws in its order, its sizes, so that the
//! counts are the ones `mork bench` prints. A MORK atom `(edge 3 17)` is
//! `(Evaluation (Predicate "edge") (List (Concept "3") (Concept "17")))`
//! here; an `exec` whose templates add atoms is a QueryLink whose
//! rewrite adds them, and MORK's count of distinct result atoms is the
//! size of the result predicate's incoming set.
//!
//! Not here: MORK's counter machine, process calculus, taxi, tile-puzzle
//! and proof-search workloads, which run rewriting programs step by step
//! (MeTTa calculus) rather than queries.

use std::time::Instant;

use atomweave::query::{execute, Executed};
use atomweave::{types, AtomSpace, Handle};
use rand09::rngs::StdRng;
use rand09::{Rng, SeedableRng};

use super::{common, Part, Pools, QueryBenchArgs, ROUNDS};

/// Runs of the finite-domain query (seconds each): the best is reported.
const SLOW_ROUNDS: usize = 3;

/// MORK's generator.
fn rng() -> StdRng {
    StdRng::from_seed([0; 32])
}

fn err(e: atomweave::Error) -> String {
    e.to_string()
}

/// The nodes `0..n` as ConceptNodes named by their numbers.
fn numbers(space: &AtomSpace, n: usize) -> Result<Vec<Handle>, String> {
    (0..n).map(|i| space.add_node(types::CONCEPT_NODE, &i.to_string())).collect::<Result<_, _>>().map_err(err)
}

/// `(Evaluation (Predicate pred) (List args...))`.
fn fact(space: &AtomSpace, pred: Handle, args: &[Handle]) -> Result<Handle, String> {
    let list = space.add_link(types::LIST_LINK, args).map_err(err)?;
    space.add_link(types::EVALUATION_LINK, &[pred, list]).map_err(err)
}

/// The Atomese of `(Evaluation (Predicate pred) (List terms...))`, each
/// term a variable (`$x`) or a number.
fn clause(pred: &str, terms: &[&str]) -> String {
    let terms: String =
        terms.iter().map(|t| if let Some(v) = t.strip_prefix('$') { format!(" (Variable \"${v}\")") } else { format!(" (Concept \"{t}\")") }).collect();
    format!("(Evaluation (Predicate \"{pred}\") (List{terms}))")
}

fn variables(names: &[String]) -> String {
    names.iter().map(|v| format!("(Variable \"${v}\")")).collect()
}

pub(super) fn run(args: &QueryBenchArgs, pools: &Pools, part: impl Fn(Part) -> bool) -> Result<(), String> {
    if part(Part::Cliques) {
        cliques(pools)?;
    }
    if part(Part::Transitive) {
        transitive(pools, args.scale as usize)?;
    }
    if part(Part::FiniteDomain) {
        finite_domain(pools, args.scale as usize)?;
    }
    Ok(())
}

/// MORK's clique benchmark: 200 nodes, 3,600 distinct undirected edges,
/// each stored from its lower-numbered node, so that a k-clique grounds
/// its pattern (an edge for every pair of its k variables) once.
fn cliques(pools: &Pools) -> Result<(), String> {
    const NODES: usize = 200;
    const EDGES: usize = 3600;
    let space = AtomSpace::new();
    let nodes = numbers(&space, NODES)?;
    let edge = space.add_node(types::PREDICATE_NODE, "edge").map_err(err)?;
    let mut rng = rng();
    let mut seen = std::collections::HashSet::new();
    let mut higher = vec![Vec::new(); NODES];
    while seen.len() < EDGES {
        let (i, j): (usize, usize) = (rng.random_range(0..NODES), rng.random_range(0..NODES));
        if i == j || !seen.insert((i.min(j), i.max(j))) {
            continue;
        }
        let (a, b) = (i.min(j), i.max(j));
        higher[a].push(b as u32);
        fact(&space, edge, &[nodes[a], nodes[b]])?;
    }
    higher.iter_mut().for_each(|h| h.sort_unstable());
    println!("mork cliques: {NODES} nodes, {EDGES} edges (MORK's graph), a k-clique as one pattern of k(k-1)/2 edges");
    for k in 3..=6 {
        let vars: Vec<String> = (0..k).map(|i| format!("x{i}")).collect();
        let mut clauses = Vec::new();
        for i in 0..k {
            for j in i + 1..k {
                clauses.push(clause("edge", &[&format!("${}", vars[i]), &format!("${}", vars[j])]));
            }
        }
        let text = format!("(Meet (VariableList {}) (And {}))", variables(&vars), clauses.join(" "));
        let q = one_expr(&space, &text)?;
        let start = Instant::now();
        let expected = count_cliques(&higher, k);
        let direct = start.elapsed().as_secs_f64();
        let best = best_of(ROUNDS, pools, &space, q, (&format!("{k}-cliques"), &expected), |r| super::groundings("clique", r))?;
        println!(
            "  {k}-cliques {expected:>6}: -T 1 {:>9.3} ms, -T {} {:>9.3} ms  (direct count {:.3} ms)",
            best[0] * 1e3,
            pools.threads,
            best[1] * 1e3,
            direct * 1e3
        );
    }
    Ok(())
}

/// The best times of `rounds` runs of `q` on one thread and on the
/// pool's, taking turns; what `found` makes of each result must be the
/// direct computation's `expected` (named `what`).
fn best_of<T: PartialEq + std::fmt::Debug>(
    rounds: usize,
    pools: &Pools,
    space: &AtomSpace,
    q: Handle,
    (what, expected): (&str, &T),
    found: impl Fn(&Executed) -> Result<T, String>,
) -> Result<[f64; 2], String> {
    let mut best = [f64::INFINITY; 2];
    for _ in 0..rounds {
        for (i, (pool, threads)) in [(&pools.one, 1), (&pools.many, pools.threads)].into_iter().enumerate() {
            pool.broadcast(|_| ());
            let start = Instant::now();
            let result = pool.install(|| execute(space, q)).map_err(err)?;
            best[i] = best[i].min(start.elapsed().as_secs_f64());
            let found = found(&result)?;
            if found != *expected {
                return Err(format!("with {threads} threads, the pattern matcher found {found:?} {what}, the direct computation {expected:?}"));
            }
        }
    }
    Ok(best)
}

/// k-cliques `a < b < ...` over each node's sorted higher neighbours: the
/// candidates for the next member are those every member so far shares
/// (a work list, `k` deep).
fn count_cliques(higher: &[Vec<u32>], k: usize) -> usize {
    let mut count = 0;
    for a in 0..higher.len() {
        // (candidates, members still to choose)
        let mut work: Vec<(Vec<u32>, usize)> = vec![(higher[a].clone(), k - 1)];
        while let Some((cands, left)) = work.pop() {
            if left == 1 {
                count += cands.len();
                continue;
            }
            for &c in &cands {
                work.push((common(&cands, &higher[c as usize]), left - 1));
            }
        }
    }
    count
}

/// Loads Atomese text into the space; its one expression.
fn one_expr(space: &AtomSpace, text: &str) -> Result<Handle, String> {
    match atomweave::sexpr::load_str(&mut &*space, text).map_err(|e| e.to_string())?[..] {
        [q] => Ok(q),
        ref qs => Err(format!("one expression expected, {} given", qs.len())),
    }
}

/// MORK's transitive benchmark: 1,000,000 random directed edges over
/// 50,000 nodes (self-loops allowed, repeats one atom), then one 2-hop
/// step `(trans a c)` and the triangle-closing step `(dtrans a b c)`,
/// each a QueryLink adding its results; counted as distinct atoms. Each
/// thread count runs on a space of its own, built afresh. Sizes divided
/// by `scale`.
fn transitive(pools: &Pools, scale: usize) -> Result<(), String> {
    let (nodes_n, edges_n) = (50_000 / scale, 1_000_000 / scale);
    let mut rng = rng();
    let edges: Vec<(u32, u32)> = (0..edges_n).map(|_| (rng.random_range(0..nodes_n) as u32, rng.random_range(0..nodes_n) as u32)).collect();
    let start = Instant::now();
    let (two_hop, closing) = direct_transitive(nodes_n, &edges);
    let direct = start.elapsed().as_secs_f64();
    let whose = if scale == 1 { "MORK's" } else { "MORK's generator, --scale" };
    println!("mork transitive: {nodes_n} nodes, {edges_n} random edges ({whose}); direct: {two_hop} 2-hop pairs, {closing} closing triples in {direct:.3} s");
    let hop = format!(
        "(Query (VariableList {}) (And {} {}) {})",
        variables(&["a".into(), "b".into(), "c".into()]),
        clause("edge", &["$a", "$b"]),
        clause("edge", &["$b", "$c"]),
        clause("trans", &["$a", "$c"])
    );
    let close = format!(
        "(Query (VariableList {}) (And {} {} {}) {})",
        variables(&["a".into(), "b".into(), "c".into()]),
        clause("edge", &["$a", "$b"]),
        clause("edge", &["$b", "$c"]),
        clause("edge", &["$a", "$c"]),
        clause("dtrans", &["$a", "$b", "$c"])
    );
    for (pool, t) in [(&pools.one, 1), (&pools.many, pools.threads)] {
        let space = AtomSpace::new();
        let nodes = numbers(&space, nodes_n)?;
        let edge = space.add_node(types::PREDICATE_NODE, "edge").map_err(err)?;
        for &(i, j) in &edges {
            fact(&space, edge, &[nodes[i as usize], nodes[j as usize]])?;
        }
        let mut line = format!("  -T {t}:");
        for (name, text, want) in [("trans", &hop, two_hop), ("dtrans", &close, closing)] {
            let q = one_expr(&space, text)?;
            pool.broadcast(|_| ());
            let start = Instant::now();
            // 20 M groundings of the 2-hop pattern: past the default cap.
            let limits = atomweave::query::Limits { max_groundings: 1 << 26, ..Default::default() };
            let result = pool.install(|| atomweave::query::with_limits(limits, || execute(&space, q))).map_err(err)?;
            let secs = start.elapsed().as_secs_f64();
            drop(result);
            let pred = space.get_node(types::PREDICATE_NODE, name).ok_or_else(|| format!("no ({name} ...) atom made"))?;
            // The QueryLink's own rewrite holds the predicate too.
            let ground = |l: &Handle| {
                space
                    .outgoing(*l)
                    .and_then(|o| o.get(1).and_then(|&list| space.outgoing(list)))
                    .is_some_and(|m| m.iter().all(|&x| space.get_type(x) == Some(types::CONCEPT_NODE)))
            };
            let found = space.incoming(pred).map_or(0, |i| i.iter().filter(|l| ground(l)).count());
            if found != want {
                return Err(format!("the QueryLink made {found} ({name} ...) atoms, the direct count {want}"));
            }
            line.push_str(&format!("  {name} {found} in {secs:.3} s;"));
        }
        println!("{line}");
    }
    Ok(())
}

/// Distinct `(a, c)` with edges a->b->c, and distinct `(a, b, c)` with
/// edges a->b, b->c and a->c.
fn direct_transitive(nodes: usize, edges: &[(u32, u32)]) -> (usize, usize) {
    let mut out = vec![Vec::new(); nodes];
    for &(a, b) in edges {
        out[a as usize].push(b);
    }
    out.iter_mut().for_each(|o| {
        o.sort_unstable();
        o.dedup();
    });
    let mut pairs: Vec<u64> = Vec::new();
    let mut closing = 0;
    for (a, bs) in out.iter().enumerate() {
        for &b in bs {
            let cs = &out[b as usize];
            pairs.extend(cs.iter().map(|&c| ((a as u64) << 32) | u64::from(c)));
            closing += common(bs, cs).len();
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    (pairs.len(), closing)
}

/// MORK's finite-domain benchmark: the tables of ten operations over 64
/// values as facts (`(x + y = z)` is `(Evaluation (Predicate "+") (List
/// x y z))`), 10,000 random `(args ...)` facts, and one pattern of eleven
/// clauses computing each one's integer distance by table lookups; the
/// distinct distances are its results. Terms divided by `scale`.
fn finite_domain(pools: &Pools, scale: usize) -> Result<(), String> {
    const DS: usize = 64;
    let terms = 10_000 / scale;
    let space = AtomSpace::new();
    let v = numbers(&space, DS)?;
    let pred = |name: &str| space.add_node(types::PREDICATE_NODE, name).map_err(err);
    let isqrt = |x: usize| (0..=x).take_while(|r| r * r <= x).last().unwrap_or(0);
    let unary: [(&str, &dyn Fn(usize) -> usize); 2] = [("sq", &|x| (x * x) % DS), ("sqrt", &isqrt)];
    for (name, f) in unary {
        let p = pred(name)?;
        for x in 0..DS {
            fact(&space, p, &[v[x], v[f(x)]])?;
        }
    }
    let binary: [(&str, &Op2); 8] = [
        ("+", &|x, y| Some((x + y) % DS)),
        ("-", &|x, y| Some((DS + x - y) % DS)),
        ("*", &|x, y| Some((x * y) % DS)),
        ("/", &|x, y| x.checked_div(y)),
        ("max", &|x, y| Some(x.max(y))),
        ("min", &|x, y| Some(x.min(y))),
        ("+s", &|x, y| Some((x + y).min(DS - 1))),
        ("*s", &|x, y| Some((x * y).min(DS - 1))),
    ];
    for (name, f) in binary {
        let p = pred(name)?;
        for x in 0..DS {
            for y in 0..DS {
                if let Some(z) = f(x, y) {
                    fact(&space, p, &[v[x], v[y], v[z]])?;
                }
            }
        }
    }
    let args = pred("args")?;
    let mut rng = rng();
    let mut expected = std::collections::BTreeSet::new();
    for _ in 0..terms {
        let t: [usize; 4] = std::array::from_fn(|_| rng.random_range(0..DS));
        fact(&space, args, &t.map(|x| v[x]))?;
        // Bound as MORK's pattern binds them: (args $x0 $y0 $x1 $y1).
        let (x0, y0, x1, y1) = (t[0], t[1], t[2], t[3]);
        let (dx, dy) = ((DS + x0.max(x1) - x0.min(x1)) % DS, (DS + y0.max(y1) - y0.min(y1)) % DS);
        expected.insert(isqrt(((dx * dx) % DS + (dy * dy) % DS) % DS));
    }
    let vars: Vec<String> = ["x0", "y0", "x1", "y1", "xl", "xh", "yl", "yh", "dx", "dy", "dx2", "dy2", "d2", "d"].map(String::from).to_vec();
    let clauses = [
        clause("args", &["$x0", "$y0", "$x1", "$y1"]),
        clause("min", &["$x0", "$x1", "$xl"]),
        clause("max", &["$x0", "$x1", "$xh"]),
        clause("min", &["$y0", "$y1", "$yl"]),
        clause("max", &["$y0", "$y1", "$yh"]),
        clause("-", &["$xh", "$xl", "$dx"]),
        clause("-", &["$yh", "$yl", "$dy"]),
        clause("sq", &["$dx", "$dx2"]),
        clause("sq", &["$dy", "$dy2"]),
        clause("+", &["$dx2", "$dy2", "$d2"]),
        clause("sqrt", &["$d2", "$d"]),
    ];
    let text = format!("(Query (VariableList {}) (And {}) {})", variables(&vars), clauses.join(" "), clause("res", &["$d"]));
    let q = one_expr(&space, &text)?;
    let best = best_of(SLOW_ROUNDS, pools, &space, q, ("as distances", &expected), |r| results(&space, r))?;
    println!(
        "mork finite domain: {terms} terms over {DS} values, 11 clauses; distances {expected:?}: -T 1 {:.3} ms, -T {} {:.3} ms",
        best[0] * 1e3,
        pools.threads,
        best[1] * 1e3
    );
    Ok(())
}

/// A binary operation's table: none where it is undefined.
type Op2 = dyn Fn(usize, usize) -> Option<usize>;

/// The distances a QueryLink's `(res d)` results name.
fn results(space: &AtomSpace, result: &Executed) -> Result<std::collections::BTreeSet<usize>, String> {
    let Executed::Value(atomweave::Value::Queue(items)) = result else {
        return Err("the finite-domain query gave no QueueValue".into());
    };
    let mut out = std::collections::BTreeSet::new();
    for item in items.snapshot() {
        let atomweave::Value::Atom(h) = item else { return Err("a result that is no atom".into()) };
        let list = space.outgoing(h).and_then(|o| o.get(1).copied()).ok_or("a result that is no (res d)")?;
        let d = space.outgoing(list).and_then(|o| o.first().copied()).and_then(|d| space.name(d)).ok_or("a result that is no (res d)")?;
        out.insert(d.parse().map_err(|_| format!("a distance that is no number: {d}"))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small random graph's edges both ways and its higher neighbours.
    fn graph(n: usize, p: f64) -> (Vec<Vec<bool>>, Vec<Vec<u32>>) {
        let mut rng = rng();
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).filter(|_| rng.random_bool(p)).collect();
        let mut adj = vec![vec![false; n]; n];
        let mut higher = vec![Vec::new(); n];
        for (a, b) in pairs {
            adj[a][b] = true;
            adj[b][a] = true;
            higher[a].push(b as u32);
        }
        (adj, higher)
    }

    #[test]
    fn clique_counts_are_those_of_every_subset() {
        let n = 14;
        let (adj, higher) = graph(n, 0.6);
        for k in 3..=6 {
            let brute = (0u32..1 << n)
                .filter(|s| s.count_ones() as usize == k)
                .filter(|s| (0..n).all(|a| s & (1 << a) == 0 || (a + 1..n).all(|b| s & (1 << b) == 0 || adj[a][b])))
                .count();
            assert_eq!(count_cliques(&higher, k), brute, "k = {k}");
        }
    }

    #[test]
    fn transitive_counts_are_those_of_every_triple() {
        let mut rng = rng();
        let n = 30;
        let edges: Vec<(u32, u32)> = (0..120).map(|_| (rng.random_range(0..n as u32), rng.random_range(0..n as u32))).collect();
        let has = |a: u32, b: u32| edges.contains(&(a, b));
        let (mut pairs, mut triples) = (std::collections::HashSet::new(), 0);
        for a in 0..n as u32 {
            for b in 0..n as u32 {
                for c in 0..n as u32 {
                    if has(a, b) && has(b, c) {
                        pairs.insert((a, c));
                        triples += usize::from(has(a, c));
                    }
                }
            }
        }
        assert_eq!(direct_transitive(n, &edges), (pairs.len(), triples));
    }
}
