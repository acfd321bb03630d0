//! The worst-case-optimal join on graphs large enough for its whole-clause
//! indexes and its split across threads: the same groundings as the
//! backtracking search and as a direct count, on 1 and 3 threads; the
//! deadline and the grounding limit hold inside it.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use atomweave::query::{execute, with_limits, with_strategy, Executed, Limits, Strategy};
use atomweave::{sexpr, AtomSpace, Error, Handle, Value};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random graph of `edges` "edge" evaluations over `nodes` concepts, the
/// lower-numbered first; and its edges as sorted pairs.
fn graph(nodes: usize, edges: usize, seed: u64) -> (AtomSpace, HashSet<(usize, usize)>) {
    let space = AtomSpace::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut set = HashSet::new();
    let mut text = String::new();
    while set.len() < edges {
        let (a, b) = (rng.gen_range(0..nodes), rng.gen_range(0..nodes));
        let (a, b) = (a.min(b), a.max(b));
        if a != b && set.insert((a, b)) {
            text.push_str(&format!("(Evaluation (Predicate \"edge\") (List (Concept \"n{a}\") (Concept \"n{b}\")))\n"));
        }
    }
    sexpr::load_str(&mut &space, &text).unwrap();
    (space, set)
}

fn edge(x: &str, y: &str) -> String {
    format!("(Evaluation (Predicate \"edge\") (List (Variable \"${x}\") (Variable \"${y}\")))")
}

fn meet(vars: &[&str], clauses: &[String]) -> String {
    let vars: String = vars.iter().map(|v| format!("(Variable \"${v}\")")).collect();
    format!("(Meet (VariableList {vars}) (And {}))", clauses.join(" "))
}

/// The groundings, each as its tuple of atom names.
fn run(space: &AtomSpace, query: &str, strategy: Strategy, threads: usize) -> HashSet<Vec<String>> {
    let q = sexpr::load_str(&mut &space.clone(), query).unwrap()[0];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let result = pool.install(|| with_strategy(strategy, || execute(space, q))).unwrap();
    let Executed::Value(Value::Queue(items)) = result else { panic!("a Meet gives a QueueValue, got {result:?}") };
    let name = |h: &Handle| space.name(*h).unwrap().to_string();
    items
        .snapshot()
        .iter()
        .map(|v| match v {
            Value::Link(members) => members.iter().map(|m| if let Value::Atom(h) = m { name(h) } else { panic!("an atom") }).collect(),
            other => panic!("a LinkValue per tuple, got {other:?}"),
        })
        .collect()
}

fn names(t: &[usize]) -> Vec<String> {
    t.iter().map(|i| format!("n{i}")).collect()
}

#[test]
fn triangles_and_four_cliques_as_a_direct_count_on_any_number_of_threads() {
    let (space, edges) = graph(600, 9000, 7);
    let nodes = 600;
    let has = |a: usize, b: usize| edges.contains(&(a, b));
    let mut triangles = HashSet::new();
    let mut cliques = HashSet::new();
    for &(a, b) in &edges {
        for c in b + 1..nodes {
            if has(a, c) && has(b, c) {
                triangles.insert(names(&[a, b, c]));
                for d in c + 1..nodes {
                    if has(a, d) && has(b, d) && has(c, d) {
                        cliques.insert(names(&[a, b, c, d]));
                    }
                }
            }
        }
    }
    assert!(triangles.len() > 100 && !cliques.is_empty(), "the graph should hold triangles and 4-cliques");
    let triangle = meet(&["a", "b", "c"], &[edge("a", "b"), edge("b", "c"), edge("a", "c")]);
    let four = meet(&["a", "b", "c", "d"], &[edge("a", "b"), edge("a", "c"), edge("a", "d"), edge("b", "c"), edge("b", "d"), edge("c", "d")]);
    for (query, expected) in [(&triangle, &triangles), (&four, &cliques)] {
        assert_eq!(&run(&space, query, Strategy::Backtrack, 1), expected);
        for threads in [1, 3] {
            assert_eq!(&run(&space, query, Strategy::Auto, threads), expected, "{threads} threads");
        }
    }
}

#[test]
fn a_cycle_with_a_constant_and_a_type_restriction_joins_as_it_backtracks() {
    let (space, _) = graph(300, 3000, 11);
    // Every other node marked; cycles of four through a marked node, the
    // opposite corner restricted to ConceptNodes (a Predicate never is one).
    let marks: String = (0..300).step_by(2).map(|i| format!("(Member (Concept \"n{i}\") (Concept \"marked\"))\n")).collect();
    sexpr::load_str(&mut &space, &marks).unwrap();
    sexpr::load_str(&mut &space, "(Evaluation (Predicate \"edge\") (List (Concept \"n1\") (Predicate \"p\")))").unwrap();
    let query = format!(
        "(Meet (VariableList (Variable \"$a\") (Variable \"$b\") (TypedVariable (Variable \"$c\") (Type \"ConceptNode\")) (Variable \"$d\")) (And (Member (Variable \"$a\") (Concept \"marked\")) {} {} {} {}))",
        edge("a", "b"),
        edge("b", "c"),
        edge("a", "d"),
        edge("d", "c")
    );
    let expected = run(&space, &query, Strategy::Backtrack, 1);
    assert!(expected.len() > 50, "the graph should hold such cycles ({} found)", expected.len());
    assert_eq!(run(&space, &query, Strategy::Join, 1), expected);
    assert_eq!(run(&space, &query, Strategy::Auto, 3), expected);
}

#[test]
fn the_deadline_and_the_grounding_limit_hold_in_the_join() {
    // Every pair of 45 nodes: 1.2 M 5-cliques, seconds of work unless stopped.
    let (space, _) = graph(45, 45 * 44 / 2, 3);
    let vars = ["a", "b", "c", "d", "e"];
    let clauses: Vec<String> = (0..5).flat_map(|i| (i + 1..5).map(move |j| (i, j))).map(|(i, j)| edge(vars[i], vars[j])).collect();
    let q = sexpr::load_str(&mut &space.clone(), &meet(&vars, &clauses)).unwrap()[0];
    let start = Instant::now();
    let soon = Limits { deadline: Some(start + Duration::from_millis(20)), ..Limits::default() };
    assert!(matches!(with_strategy(Strategy::Join, || with_limits(soon, || execute(&space, q))), Err(Error::TimedOut)));
    assert!(start.elapsed() < Duration::from_secs(1), "the join went on for {:?} past its deadline", start.elapsed());
    let few = Limits { max_groundings: 10, ..Limits::default() };
    let err = with_strategy(Strategy::Join, || with_limits(few, || execute(&space, q))).unwrap_err();
    assert!(err.to_string().contains("more than 10 groundings"), "{err}");
}

#[test]
fn the_grounding_limit_counts_the_whole_of_a_split_search() {
    // 100 triangles apart from one another: a split search's parts each
    // find a few, together more than the limit.
    let space = AtomSpace::new();
    let text: String = (0..100).map(|i| format!("{} {} {}\n", fact(i, "a", "b"), fact(i, "b", "c"), fact(i, "a", "c"))).collect();
    sexpr::load_str(&mut &space, &text).unwrap();
    let q = sexpr::load_str(&mut &space.clone(), &meet(&["a", "b", "c"], &[edge("a", "b"), edge("b", "c"), edge("a", "c")])).unwrap()[0];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for strategy in [Strategy::Auto, Strategy::Backtrack, Strategy::Join] {
        let few = Limits { max_groundings: 10, ..Limits::default() };
        let err = pool.install(|| with_strategy(strategy, || with_limits(few, || execute(&space, q)))).unwrap_err();
        assert!(err.to_string().contains("more than 10 groundings"), "{strategy:?}: {err}");
        assert_eq!(run(&space, &meet(&["a", "b", "c"], &[edge("a", "b"), edge("b", "c"), edge("a", "c")]), strategy, 3).len(), 100);
    }
}

fn fact(i: usize, x: &str, y: &str) -> String {
    format!("(Evaluation (Predicate \"edge\") (List (Concept \"{x}{i}\") (Concept \"{y}{i}\")))")
}
