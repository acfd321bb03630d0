//! The pattern matcher's limits: shared subterms, deep queries.

use std::sync::mpsc;
use std::time::Duration;

use atomweave::query::{execute, Executed};
use atomweave::types::*;
use atomweave::AtomSpace;

/// A query over a shared sub-atom (a DAG: L(i+1) = (List L(i) L(i))) is
/// compiled once per distinct subterm, not as a tree of 2^40 nodes.
/// Reachable through the API (Python, Scheme, server), not through text.
#[test]
fn dag_shaped_constant_in_query_is_linear() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let space = AtomSpace::new();
        let mut l = space.add_node(CONCEPT_NODE, "a").unwrap();
        for _ in 0..40 {
            l = space.add_link(LIST_LINK, &[l, l]).unwrap();
        }
        let x = space.add_node(VARIABLE_NODE, "$x").unwrap();
        let clause = space.add_link(INHERITANCE_LINK, &[x, l]).unwrap();
        let q = space.add_link(GET_LINK, &[clause]).unwrap();
        let _ = tx.send(execute(&space, q).map(|r| matches!(r, Executed::Atom(_))));
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(r) => assert!(r.unwrap()),
        Err(_) => panic!("execute did not finish in 20 s on a 40-level DAG-shaped constant"),
    }
}

/// A query nested deeper than the matcher recurses is refused with an error
/// (not a stack overflow), and adds nothing.
#[test]
fn deep_queries_are_refused_not_overflowed() {
    let space = AtomSpace::new();
    let x = space.add_node(VARIABLE_NODE, "$x").unwrap();
    let mut term = x;
    for _ in 0..3000 {
        term = space.add_link(LIST_LINK, &[term]).unwrap();
    }
    let q = space.add_link(GET_LINK, &[term]).unwrap();
    let before = space.size();
    let err = execute(&space, q).unwrap_err().to_string();
    assert!(err.contains("nested more than"), "{err}");
    assert_eq!(space.size(), before);

    let mut sum = space.add_node(NUMBER_NODE, "1").unwrap();
    for _ in 0..3000 {
        let one = space.add_node(NUMBER_NODE, "1").unwrap();
        sum = space.add_link(PLUS_LINK, &[sum, one]).unwrap();
    }
    assert!(execute(&space, sum).is_err());
}

/// The depth check measures a shared sub-atom once, and still counts it
/// from every place it is met: a ladder A(k+1) = A(k) under 200 ListLinks,
/// listed (A1 ... A8) so that A(k) is measured shallow first, is 1,600
/// deep and refused, not recursed into by the evaluator.
#[test]
fn a_shared_subterm_met_deeper_counts_its_depth() {
    let space = AtomSpace::new();
    let mut rungs = Vec::new();
    let mut a = space.add_node(NUMBER_NODE, "1").unwrap();
    for _ in 0..8 {
        for _ in 0..200 {
            a = space.add_link(LIST_LINK, &[a]).unwrap();
        }
        rungs.push(a);
    }
    let all = space.add_link(LIST_LINK, &rungs).unwrap();
    let q = space.add_link(EQUAL_LINK, &[all, all]).unwrap();
    let err = execute(&space, q).unwrap_err().to_string();
    assert!(err.contains("nested more than 256 deep"), "{err}");
}

/// Runs `f` on a thread with a stack of `kib` KiB, failing after 60 s.
fn on_stack(kib: usize, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .stack_size(kib << 10)
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .unwrap();
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(()) => worker.join().unwrap(),
        Err(_) if worker.is_finished() => std::panic::resume_unwind(worker.join().unwrap_err()),
        Err(_) => panic!("did not finish in 60 s"),
    }
}

/// The one result of a GetLink with one variable.
fn only_result(space: &AtomSpace, q: atomweave::Handle) -> atomweave::Handle {
    let Executed::Atom(set) = execute(space, q).unwrap() else { panic!("a GetLink gives an atom") };
    match space.outgoing(set).unwrap() {
        [one] => *one,
        other => panic!(
            "expected one result, got {:?}",
            other
                .iter()
                .map(|&h| atomweave::sexpr::atom_to_string(space, h, atomweave::sexpr::Form::Wire).unwrap().chars().take(80).collect::<String>())
                .collect::<Vec<_>>()
        ),
    }
}

/// Constants in a pattern are compared in place: a link of 100,000 members
/// with one variable among them, ordered, with a glob, or unordered, is
/// matched on a 256 KiB stack.
#[test]
fn wide_links_of_constants_match_on_a_small_stack() {
    on_stack(256, || {
        for (ty, glob) in [(LIST_LINK, false), (SET_LINK, false), (LIST_LINK, true)] {
            let space = AtomSpace::new();
            let consts: Vec<_> = (0..100_000).map(|i| space.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap()).collect();
            let answer = space.add_node(CONCEPT_NODE, "answer").unwrap();
            let data: Vec<_> = consts.iter().copied().chain([answer]).collect();
            space.add_link(ty, &data).unwrap();
            let var = space.add_node(if glob { GLOB_NODE } else { VARIABLE_NODE }, "$v").unwrap();
            let pattern: Vec<_> = consts.iter().copied().chain([var]).collect();
            let clause = space.add_link(ty, &pattern).unwrap();
            let vardecl = space.add_link(VARIABLE_LIST, &[var]).unwrap();
            let q = space.add_link(GET_LINK, &[vardecl, clause]).unwrap();
            let got = only_result(&space, q);
            let want = if glob { space.get_link(LIST_LINK, &[answer]).unwrap() } else { answer };
            assert_eq!(got, want, "{ty:?}, glob {glob}");
        }
    });
}

/// A pattern with more variable terms than the matcher keeps on its stack
/// is refused with an error naming the limit, and adds nothing; one at the
/// limit matches. A DAG-shaped pattern (2^40 places) is refused at once.
#[test]
fn patterns_too_large_to_match_are_refused() {
    on_stack(8 << 10, || {
        let space = AtomSpace::new();
        let (a, b) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(CONCEPT_NODE, "b").unwrap());
        let x = space.add_node(VARIABLE_NODE, "$x").unwrap();
        let choice = space.add_link(CHOICE_LINK, &[a, b]).unwrap();
        let wide = |n: usize| {
            let pattern: Vec<_> = std::iter::once(x).chain(std::iter::repeat_n(choice, n)).collect();
            let data: Vec<_> = std::iter::once(b).chain(std::iter::repeat_n(a, n)).collect();
            space.add_link(LIST_LINK, &data).unwrap();
            let clause = space.add_link(LIST_LINK, &pattern).unwrap();
            space.add_link(GET_LINK, &[clause]).unwrap()
        };
        // The ListLink, $x, and a ChoiceLink per member: 2,048 in all.
        let at_limit = wide(2046);
        assert_eq!(only_result(&space, at_limit), b);
        let over = wide(2047);
        let before = space.size();
        let err = execute(&space, over).unwrap_err().to_string();
        assert!(err.contains("too large to match") && err.contains("2049"), "{err}");
        assert_eq!(space.size(), before);

        let mut dag = x;
        for _ in 0..40 {
            dag = space.add_link(LIST_LINK, &[dag, dag]).unwrap();
        }
        let q = space.add_link(GET_LINK, &[dag]).unwrap();
        let err = execute(&space, q).unwrap_err().to_string();
        assert!(err.contains("too large to match"), "{err}");
    });
}

/// A candidate grounding is checked for being part of the query itself;
/// when the variables sit in too many links to list, each candidate is
/// looked into, with a memo: a tower of shared members (2^64 paths) is
/// looked through in time linear in its 64 links.
#[test]
fn a_shared_candidate_is_checked_once_per_member() {
    on_stack(2 << 10, || {
        let space = AtomSpace::new();
        let x = space.add_node(VARIABLE_NODE, "$x").unwrap();
        for i in 0..5000 {
            let c = space.add_node(CONCEPT_NODE, &format!("other{i}")).unwrap();
            space.add_link(LIST_LINK, &[x, c]).unwrap();
        }
        let mut tower = space.add_node(CONCEPT_NODE, "base").unwrap();
        for _ in 0..64 {
            tower = space.add_link(LIST_LINK, &[tower, tower]).unwrap();
        }
        let c = space.add_node(CONCEPT_NODE, "c").unwrap();
        space.add_link(INHERITANCE_LINK, &[tower, c]).unwrap();
        let clause = space.add_link(INHERITANCE_LINK, &[x, c]).unwrap();
        let q = space.add_link(GET_LINK, &[x, clause]).unwrap();
        assert_eq!(only_result(&space, q), tower);
    });
}

/// A GetLink of an unordered link of `n` variables against a SetLink of
/// `n` members, whose every grounding an EqualLink then rejects: n!
/// permutations tried, none kept.
fn permutations_query(space: &AtomSpace, n: usize) -> atomweave::Handle {
    let vars: Vec<_> = (0..n).map(|i| space.add_node(VARIABLE_NODE, &format!("$v{i}")).unwrap()).collect();
    let members: Vec<_> = (0..n).map(|i| space.add_node(CONCEPT_NODE, &format!("m{i}")).unwrap()).collect();
    space.add_link(SET_LINK, &members).unwrap();
    let set = space.add_link(SET_LINK, &vars).unwrap();
    let none = space.add_node(CONCEPT_NODE, "none").unwrap();
    let never = space.add_link(EQUAL_LINK, &[vars[0], none]).unwrap();
    let body = space.add_link(AND_LINK, &[set, never]).unwrap();
    space.add_link(GET_LINK, &[body]).unwrap()
}

/// A search that would take minutes stops at its deadline with
/// `TimedOut`, soon after it, having added nothing; so does one run under
/// `with_limits`, and a query started after the deadline.
#[test]
fn queries_stop_at_their_deadline() {
    use atomweave::query::{execute_until, with_limits, Limits};
    let with_deadline = |d, f: &dyn Fn() -> _| with_limits(Limits { deadline: Some(d), ..Limits::default() }, f);
    use std::time::Instant;
    let space = AtomSpace::new();
    let q = permutations_query(&space, 12);
    let before = space.size();
    let start = Instant::now();
    assert_eq!(execute_until(&space, q, start + Duration::from_millis(200)), Err(atomweave::Error::TimedOut));
    assert!(start.elapsed() < Duration::from_secs(10), "stopped {:?} after the deadline", start.elapsed());
    assert_eq!(space.size(), before);
    let start = Instant::now();
    let got = with_deadline(start + Duration::from_millis(100), &|| execute(&space, q));
    assert_eq!(got, Err(atomweave::Error::TimedOut));
    assert_eq!(with_deadline(start, &|| execute(&space, q)), Err(atomweave::Error::TimedOut));
    // Cancelled from another thread, a query with no deadline stops too.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let start = Instant::now();
    let got = with_limits(Limits { cancel: Some(cancel), ..Limits::default() }, || execute(&space, q));
    assert_eq!(got, Err(atomweave::Error::TimedOut));
    assert!(start.elapsed() < Duration::from_secs(10), "stopped {:?} after the start", start.elapsed());
    canceller.join().unwrap();
    // Without limits, a small query of the same shape runs to its end.
    let space = AtomSpace::new();
    let small = permutations_query(&space, 4);
    assert!(matches!(execute(&space, small), Ok(Executed::Atom(_))));
}

/// An interrupt check (what Python hooks Ctrl-C to) stops a long query
/// once it says so, and one added under a caller's deadline keeps that
/// deadline.
#[test]
fn queries_stop_when_their_interrupt_check_says_so() {
    use atomweave::query::{with_interrupt, with_limits, Interrupt, Limits};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Instant;
    let space = AtomSpace::new();
    let q = permutations_query(&space, 12);
    let start = Instant::now();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let after_100ms = Interrupt(Arc::new(move || {
        count.fetch_add(1, Ordering::Relaxed);
        start.elapsed() > Duration::from_millis(100)
    }));
    assert_eq!(with_interrupt(after_100ms, || execute(&space, q)), Err(atomweave::Error::TimedOut));
    assert!(start.elapsed() < Duration::from_secs(10), "stopped {:?} after the start", start.elapsed());
    assert!(asked.load(Ordering::Relaxed) > 1);
    // A check that never fires leaves the caller's deadline in force.
    let never = Interrupt(Arc::new(|| false));
    let start = Instant::now();
    let limits = Limits { deadline: Some(start + Duration::from_millis(100)), ..Limits::default() };
    let got = with_limits(limits, || with_interrupt(never.clone(), || execute(&space, q)));
    assert_eq!(got, Err(atomweave::Error::TimedOut));
    assert!(start.elapsed() < Duration::from_secs(10), "stopped {:?} after the start", start.elapsed());
    // With nothing to stop it, a small query runs to its end.
    let space = AtomSpace::new();
    let small = permutations_query(&space, 4);
    assert!(matches!(with_interrupt(never, || execute(&space, small)), Ok(Executed::Atom(_))));
}

/// An interrupt only the thread that started the query can answer (so
/// Python's signals, which reach the main thread only) stops a search
/// split across the pool's threads, and the threads of a ThreadJoinLink
/// and an ExecuteThreadedLink: the starting thread keeps asking while it
/// waits for them.
#[test]
fn an_interrupt_only_the_starting_thread_hears_stops_split_and_threaded_queries() {
    use atomweave::query::{evaluate, with_interrupt, Interrupt};
    use std::sync::Arc;
    use std::time::Instant;
    // Another test may have made the pool first; what matters is that a
    // search of 300 candidates is split.
    let _ = rayon::ThreadPoolBuilder::new().num_threads(4).build_global();
    assert!(rayon::current_num_threads() >= 2, "the split needs a pool of two threads or more");
    let space = AtomSpace::new();
    let q = permutations_query(&space, 12);
    let get = space.outgoing(q).unwrap()[0];
    // 299 more sets of twelve members: 300 candidates for the first clause.
    for s in 1..300 {
        let members: Vec<_> = (0..12).map(|i| space.add_node(CONCEPT_NODE, &format!("m{s}_{i}")).unwrap()).collect();
        space.add_link(SET_LINK, &members).unwrap();
    }
    let satisfaction = space.add_link(SATISFACTION_LINK, &[get]).unwrap();
    let join = space.add_link(THREAD_JOIN_LINK, &[satisfaction, satisfaction]).unwrap();
    let work = space.add_link(SET_LINK, &[q, satisfaction]).unwrap();
    let threaded = space.add_link(EXECUTE_THREADED_LINK, &[work]).unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let owner = std::thread::current().id();
        let heard = |start: Instant| Interrupt(Arc::new(move || std::thread::current().id() == owner && start.elapsed() > Duration::from_millis(100)));
        let start = Instant::now();
        let split = with_interrupt(heard(start), || execute(&space, q)).map(drop);
        tx.send(("split search", split, start.elapsed())).unwrap();
        let start = Instant::now();
        let joined = with_interrupt(heard(start), || evaluate(&space, join)).map(drop);
        tx.send(("ThreadJoinLink", joined, start.elapsed())).unwrap();
        let start = Instant::now();
        let ran = with_interrupt(heard(start), || execute(&space, threaded)).map(drop);
        tx.send(("ExecuteThreadedLink", ran, start.elapsed())).unwrap();
    });
    for _ in 0..3 {
        let (what, got, took) = rx.recv_timeout(Duration::from_secs(30)).expect("the query went on past its interrupt");
        assert_eq!(got, Err(atomweave::Error::TimedOut), "{what}");
        assert!(took < Duration::from_secs(10), "{what} stopped {took:?} after the start");
    }
}

/// A query with more groundings than its limit (16 M by default) is
/// refused with an error before they fill memory, adding nothing: 7
/// variables in an unordered link against 7 members ground in 7! = 5,040
/// ways, over a limit of 1,000; a limit of 5,040 lets them all through.
#[test]
fn queries_with_too_many_groundings_are_refused() {
    use atomweave::query::{with_limits, Limits};
    assert_eq!(Limits::default().max_groundings, 1 << 24);
    let space = AtomSpace::new();
    let vars: Vec<_> = (0..7).map(|i| space.add_node(VARIABLE_NODE, &format!("$v{i}")).unwrap()).collect();
    let members: Vec<_> = (0..7).map(|i| space.add_node(CONCEPT_NODE, &format!("m{i}")).unwrap()).collect();
    space.add_link(SET_LINK, &members).unwrap();
    let set = space.add_link(SET_LINK, &vars).unwrap();
    let q = space.add_link(GET_LINK, &[set]).unwrap();
    let before = space.size();
    let limited = |max_groundings| with_limits(Limits { max_groundings, ..Limits::default() }, || execute(&space, q));
    let err = limited(1000).unwrap_err().to_string();
    assert!(err.contains("more than 1000 groundings"), "{err}");
    assert_eq!(space.size(), before);
    let Executed::Atom(set) = limited(5040).unwrap() else { panic!("a GetLink gives an atom") };
    assert_eq!(space.arity(set), Some(5040));
}

/// `n` links of type `ty` around `leaf`, each holding the one before and
/// then `extra`: built a level at a time, as any client may build them.
fn chain(space: &AtomSpace, ty: atomweave::Type, leaf: atomweave::Handle, extra: &[atomweave::Handle], n: usize) -> atomweave::Handle {
    (0..n).fold(leaf, |inner, _| space.add_link(ty, &[&[inner][..], extra].concat()).unwrap())
}

fn refused_as_too_deep<T: std::fmt::Debug>(done: atomweave::Result<T>) {
    let err = done.unwrap_err().to_string();
    assert!(err.contains("nested more than 256 deep"), "{err}");
}

/// The evaluator and the matcher recurse over what they walk, so that is
/// checked for depth wherever it comes from, not only a query's own atoms:
/// an atom evaluated directly, a definition a query body names, a pattern
/// a DualLink finds in the space, a grounding a condition computes. Each
/// was a stack overflow; each is now an error (for the DualLink, a pattern
/// too deep to match anything the query holds).
#[test]
fn deep_atoms_reached_other_than_through_a_query_are_refused() {
    on_stack(2 << 10, || {
        use atomweave::query::evaluate;
        let space = AtomSpace::new();
        let one = space.add_node(NUMBER_NODE, "1").unwrap();
        let plus = chain(&space, PLUS_LINK, one, &[one], 100_000);
        refused_as_too_deep(evaluate(&space, space.add_link(FORMULA_PREDICATE_LINK, &[plus]).unwrap()));
        let c = space.add_node(CONCEPT_NODE, "c").unwrap();
        let list = chain(&space, LIST_LINK, c, &[], 100_000);
        refused_as_too_deep(evaluate(&space, space.add_link(EQUAL_LINK, &[list, c]).unwrap()));
        // Data the evaluator does not walk is not refused: an EvaluationLink
        // of no grounded predicate gives its own truth value.
        let p = space.add_node(PREDICATE_NODE, "p").unwrap();
        let data = space.add_link(EVALUATION_LINK, &[p, list]).unwrap();
        let tv = atomweave::TruthValue::simple(0.25, 0.5);
        space.set_tv(data, tv).unwrap();
        assert_eq!(evaluate(&space, data).unwrap(), tv);

        let x = space.add_node(VARIABLE_NODE, "$x").unwrap();
        let body = chain(&space, LIST_LINK, x, &[], 100_000);
        let d = space.add_node(DEFINED_PREDICATE_NODE, "d").unwrap();
        space.add_link(DEFINE_LINK, &[d, body]).unwrap();
        refused_as_too_deep(execute(&space, space.add_link(GET_LINK, &[d]).unwrap()));

        let a = space.add_node(CONCEPT_NODE, "a").unwrap();
        let term = space.add_link(LIST_LINK, &[a]).unwrap();
        let Executed::Atom(found) = execute(&space, space.add_link(DUAL_LINK, &[term]).unwrap()).unwrap() else { panic!("a DualLink gives a SetLink") };
        // The chain's lowest link, (List $x), is a pattern that grounds it.
        assert_eq!(space.outgoing(found).unwrap(), &[space.get_link(LIST_LINK, &[x]).unwrap()]);

        let holder = space.add_node(CONCEPT_NODE, "holder").unwrap();
        space.add_link(MEMBER_LINK, &[plus, holder]).unwrap();
        let y = space.add_node(VARIABLE_NODE, "$y").unwrap();
        let zero = space.add_node(NUMBER_NODE, "0").unwrap();
        let member = space.add_link(MEMBER_LINK, &[y, holder]).unwrap();
        let greater = space.add_link(GREATER_THAN_LINK, &[y, zero]).unwrap();
        let and = space.add_link(AND_LINK, &[member, greater]).unwrap();
        refused_as_too_deep(execute(&space, space.add_link(GET_LINK, &[y, and]).unwrap()));
    });
}

/// Executions nest at most 256 deep and each walks at most 256 deep, which
/// together is more than any thread's stack holds: a definition that calls
/// itself through 250 levels of arithmetic ends with the nesting error on a
/// 2 MiB stack (a rayon worker's), each execution moving to a new stack
/// segment where the thread's runs short.
#[test]
fn nested_executions_do_not_multiply_into_an_overflow() {
    on_stack(2 << 10, || {
        let space = AtomSpace::new();
        let one = space.add_node(NUMBER_NODE, "1").unwrap();
        let d = space.add_node(DEFINED_SCHEMA_NODE, "d").unwrap();
        let call = space.add_link(PLUS_LINK, &[d, one]).unwrap();
        let body = chain(&space, PLUS_LINK, call, &[one], 250);
        space.add_link(DEFINE_LINK, &[d, body]).unwrap();
        let err = execute(&space, call).unwrap_err().to_string();
        assert!(err.contains("nest more than 256 deep"), "{err}");
    });
}

/// Walks over a body look at a member shared by several links once: a
/// tower of 60 AndLinks, each holding the one below twice (2^60 paths),
/// is compiled at once and evaluated until the deadline, and its free
/// variables are found at once.
#[test]
fn shared_members_are_walked_once() {
    on_stack(2 << 10, || {
        let space = AtomSpace::new();
        let (a, v) = (space.add_node(CONCEPT_NODE, "a").unwrap(), space.add_node(VARIABLE_NODE, "$v").unwrap());
        let equal = space.add_link(EQUAL_LINK, &[a, a]).unwrap();
        let tower = (0..60).fold(equal, |x, _| space.add_link(AND_LINK, &[x, x]).unwrap());
        let q = space.add_link(SATISFACTION_LINK, &[space.add_link(NOT_LINK, &[tower]).unwrap()]).unwrap();
        let limits = atomweave::query::Limits { deadline: Some(std::time::Instant::now() + Duration::from_millis(500)), ..Default::default() };
        let done = atomweave::query::with_limits(limits, || execute(&space, q));
        assert!(matches!(done, Err(atomweave::Error::TimedOut)), "{done:?}");

        let lists = (0..60).fold(v, |x, _| space.add_link(LIST_LINK, &[x, x]).unwrap());
        assert_eq!(atomweave::query::free_variables(&space, lists).unwrap(), vec![v]);
    });
}
