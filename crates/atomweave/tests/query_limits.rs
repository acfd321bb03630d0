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
