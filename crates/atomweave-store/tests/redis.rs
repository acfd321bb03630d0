//! The Redis stores against real servers: each test starts its own
//! `redis-server` (or a cluster of six: three masters, three replicas) on
//! loopback, which stops, by pid, when the test ends however it ends.

mod common;

use atomweave::types::*;
use atomweave::{AtomSpace, TruthValue, Value};
use atomweave_store::open;
use atomweave_store::redis::scratch::Scratch;
use common::{canon_set, load_store, random_space};

/// Stores a random space with every kind of value, loads it back, and
/// stores it again: the same atoms and values, none twice.
fn round_trip(url: &str) {
    let space = random_space(3_000);
    let want = canon_set(&space);
    let mut store = open(url).unwrap();
    assert_eq!(store.store_atomspace(&space, &mut |_| {}).unwrap() as usize, space.size());
    store.close().unwrap();
    assert_eq!(canon_set(&load_store(url)), want);
    let mut store = open(url).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    let again = load_store(url);
    assert_eq!((again.size(), canon_set(&again)), (space.size(), want));
}

#[test]
fn one_server_round_trip() {
    let server = Scratch::single().unwrap();
    round_trip(&server.url(""));
}

#[test]
fn one_server_every_single_atom_call() {
    let server = Scratch::single().unwrap();
    common::exercise_single_atom_calls(&server.url(""));
}

#[test]
fn one_server_incoming_sets_at_every_position() {
    let server = Scratch::single().unwrap();
    common::exercise_incoming_at_every_position(&server.url(""));
}

#[test]
fn cluster_round_trip_and_calls() {
    let cluster = Scratch::cluster(3, 1).unwrap();
    round_trip(&cluster.url("buckets=64"));
    // A store is made once: its bucket count stays.
    let err = open(&cluster.url("buckets=128")).err().expect("another bucket count refused").to_string();
    assert!(err.contains("buckets=64"), "{err}");
    assert_eq!(cluster.masters().len(), 3);
}

#[test]
fn cluster_single_atom_calls() {
    let cluster = Scratch::cluster(3, 1).unwrap();
    common::exercise_single_atom_calls(&cluster.url(""));
    let cluster = Scratch::cluster(3, 1).unwrap();
    common::exercise_incoming_at_every_position(&cluster.url(""));
}

/// A hub's entries lie in pages of its own, each in Redis's compact
/// encoding, and are read, counted, deleted and checked through them; a
/// writer that did not take it for a hub put its entries in the bucket's
/// index, and readers find both.
#[test]
fn a_hubs_entries_are_paged_and_found_with_its_buckets() {
    let server = Scratch::single().unwrap();
    let (url, port) = (server.url(""), server.nodes[0].port);
    let space = AtomSpace::new();
    let hub = space.add_node(PREDICATE_NODE, "hub").unwrap();
    let n = 2_000;
    for i in 0..n {
        let c = space.add_node(CONCEPT_NODE, &format!("c{i}")).unwrap();
        space.add_link(LIST_LINK, &[hub, c]).unwrap();
        space.add_link(MEMBER_LINK, &[c, hub]).unwrap();
    }
    let mut store = open(&url).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    let cli = |args: &[&str]| atomweave_store::redis::scratch::cli(port, args).unwrap();
    let pages: Vec<String> = cli(&["--scan", "--pattern", "i{*}*:*:*"]).lines().map(str::to_string).collect();
    assert!(pages.len() >= 2 * n / 64, "{} pages", pages.len());
    let mut paged = 0;
    for p in &pages {
        assert_eq!(cli(&["OBJECT", "ENCODING", p]).trim(), "listpack", "{p}");
        paged += cli(&["ZCARD", p]).trim().parse::<usize>().unwrap();
    }
    assert_eq!(paged, 2 * n, "every entry of the hub in its pages");

    // A second writer, whose space holds a few links to the hub.
    let few = AtomSpace::new();
    let h = few.add_node(PREDICATE_NODE, "hub").unwrap();
    let mut store = open(&url).unwrap();
    for i in 0..10 {
        let c = few.add_node(CONCEPT_NODE, &format!("x{i}")).unwrap();
        let l = few.add_link(LIST_LINK, &[h, c]).unwrap();
        store.store_atom(&few, l).unwrap();
    }
    store.barrier().unwrap();
    let r = AtomSpace::new();
    let hub = r.add_node(PREDICATE_NODE, "hub").unwrap();
    assert_eq!(store.fetch_incoming_set(&r, hub, false).unwrap(), 2 * n + 10);
    assert_eq!(store.incoming_count(&r, hub, usize::MAX).unwrap(), Some(2 * n + 10));
    let r = AtomSpace::new();
    let hub = r.add_node(PREDICATE_NODE, "hub").unwrap();
    assert_eq!(store.fetch_incoming_by_type(&r, hub, MEMBER_LINK).unwrap(), n);
    assert_eq!(store.fetch_incoming_by_type(&r, hub, LIST_LINK).unwrap(), n + 10);
    // One link of each writer's deleted: gone from pages and bucket alike.
    for name in ["c7", "x3"] {
        let c = r.get_node(CONCEPT_NODE, name).unwrap();
        let l = r.get_link(LIST_LINK, &[hub, c]).unwrap();
        assert!(store.delete(&r, l, false).unwrap());
    }
    store.close().unwrap();
    let mut check = atomweave_store::redis::RedisStore::open(&url).unwrap();
    assert_eq!(check.check().unwrap() as usize, space.size() + 20 - 2);
    let r = AtomSpace::new();
    let hub = r.add_node(PREDICATE_NODE, "hub").unwrap();
    let mut store = open(&url).unwrap();
    assert_eq!(store.fetch_incoming_set(&r, hub, false).unwrap(), 2 * n + 10 - 2);
    assert_eq!(store.incoming_count(&r, hub, usize::MAX).unwrap(), Some(2 * n + 10 - 2));
}

#[test]
fn two_writers_leave_one_copy_of_each_atom_and_the_last_value() {
    let cluster = Scratch::cluster(3, 1).unwrap();
    let url = cluster.url("");
    let (a, b) = (random_space(2_000), random_space(2_000));
    let extra = b.add_node(CONCEPT_NODE, "only in b").unwrap();
    let key = b.add_node(PREDICATE_NODE, "key").unwrap();
    b.set_value(extra, key, Value::float(vec![1.0])).unwrap();
    std::thread::scope(|s| {
        for space in [&a, &b] {
            let url = url.clone();
            s.spawn(move || {
                let mut store = open(&url).unwrap();
                store.store_atomspace(space, &mut |_| {}).unwrap();
                store.close().unwrap();
            });
        }
    });
    let back = load_store(&url);
    assert_eq!(back.size(), b.size(), "overlapping writes leave one copy of each content");
    assert_eq!(canon_set(&back), canon_set(&b));
    // Values of one atom from two writers: the later store wins.
    let (w1, w2) = (AtomSpace::new(), AtomSpace::new());
    for (space, x) in [(&w1, 1.0), (&w2, 2.0)] {
        let n = space.add_node(CONCEPT_NODE, "shared").unwrap();
        let k = space.add_node(PREDICATE_NODE, "key").unwrap();
        space.set_value(n, k, Value::float(vec![x])).unwrap();
        space.set_tv(n, TruthValue::simple(x / 4.0, 0.5)).unwrap();
        let mut store = open(&url).unwrap();
        store.store_atom(space, n).unwrap();
        store.close().unwrap();
    }
    let r = AtomSpace::new();
    let n = r.add_node(CONCEPT_NODE, "shared").unwrap();
    let mut store = open(&url).unwrap();
    assert!(store.fetch_atom(&r, n).unwrap());
    assert_eq!(r.get_value(n, r.get_node(PREDICATE_NODE, "key").unwrap()), Some(Value::float(vec![2.0])));
    assert_eq!(r.get_tv(n), Some(TruthValue::simple(0.5, 0.5)));
}

#[test]
fn an_unreachable_server_is_an_error_within_the_timeout() {
    let server = Scratch::single().unwrap();
    let url = server.url("timeout=2");
    let mut store = open(&url).unwrap();
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    server.nodes[0].pause();
    let start = std::time::Instant::now();
    store.store_atom(&space, a).unwrap();
    let err = store.barrier().expect_err("a paused server answers nothing");
    let took = start.elapsed();
    server.nodes[0].resume();
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert!(err.to_string().contains("no answer within 2 s"), "{err}");
    // The batch stayed queued: the next barrier writes it.
    store.barrier().unwrap();
    let back = load_store(&url);
    assert!(back.get_node(CONCEPT_NODE, "a").is_some());
    let opening = open(&format!("redis://127.0.0.1:{}?timeout=1", server.nodes[0].port));
    assert!(opening.is_ok());
}
