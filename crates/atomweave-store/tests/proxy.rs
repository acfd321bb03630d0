//! Proxies pass StorageNode calls to the stores their ProxyParametersLink
//! names: writes through, reads through, in turn or in order.

use atomweave::sexpr::load_str;
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, TruthValue, Value};
use atomweave_store::proxy::open_node;

mod common;
use common::child::ChildTest;

fn atom(space: &AtomSpace, text: &str) -> Handle {
    *load_str(&mut &*space, text).unwrap().last().unwrap()
}

/// An LMDB store's node atom, in `dir`.
fn lmdb(space: &AtomSpace, dir: &tempfile::TempDir) -> Handle {
    atom(space, &format!("(LmdbStorageNode \"lmdb://{}\")", dir.path().display()))
}

fn stored_in(dir: &tempfile::TempDir, name: &str) -> Option<TruthValue> {
    let space = AtomSpace::new();
    let node = lmdb(&space, dir);
    let mut store = open_node(&space, node).unwrap();
    let h = space.add_node(CONCEPT_NODE, name).unwrap();
    let found = store.fetch_atom(&space, h).unwrap();
    store.close().unwrap();
    found.then(|| space.get_tv(h).unwrap())
}

#[test]
fn a_write_thru_proxy_writes_to_every_target_and_reads_nothing() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let space = AtomSpace::new();
    let (s1, s2) = (lmdb(&space, &d1), lmdb(&space, &d2));
    let proxy = atom(&space, "(WriteThruProxy \"w\")");
    space.add_link(PROXY_PARAMETERS_LINK, &[proxy, space.add_link(LIST_LINK, &[s1, s2]).unwrap()]).unwrap();
    let mut store = open_node(&space, proxy).unwrap();
    let a = atom(&space, "(Concept \"a\" (stv 0.5 0.25))");
    store.store_atom(&space, a).unwrap();
    let err = store.fetch_atom(&space, a).unwrap_err().to_string();
    assert!(err.contains("does not read"), "{err}");
    store.close().unwrap();
    assert_eq!(stored_in(&d1, "a"), Some(TruthValue::simple(0.5, 0.25)));
    assert_eq!(stored_in(&d2, "a"), Some(TruthValue::simple(0.5, 0.25)));
}

#[test]
fn read_proxies_read_in_turn_or_in_order_and_refuse_writes() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    {
        let space = AtomSpace::new();
        let s2 = lmdb(&space, &d2);
        let mut store = open_node(&space, s2).unwrap();
        let b = atom(&space, "(Concept \"b\" (stv 0.75 0.5))");
        store.store_atom(&space, b).unwrap();
        store.close().unwrap();
    }
    for (kind, found_by_first_read) in [("SequentialReadProxy", true), ("ReadThruProxy", false)] {
        let space = AtomSpace::new();
        let (s1, s2) = (lmdb(&space, &d1), lmdb(&space, &d2));
        let proxy = atom(&space, &format!("({kind} \"r\")"));
        space.add_link(PROXY_PARAMETERS_LINK, &[proxy, space.add_link(LIST_LINK, &[s1, s2]).unwrap()]).unwrap();
        let mut store = open_node(&space, proxy).unwrap();
        let b = space.add_node(CONCEPT_NODE, "b").unwrap();
        // In order: the first store lacks it, the second has it. In turn: the first read asks the first store.
        assert_eq!(store.fetch_atom(&space, b).unwrap(), found_by_first_read, "{kind}");
        if !found_by_first_read {
            assert!(store.fetch_atom(&space, b).unwrap(), "{kind}: the second read asks the second store");
        }
        assert_eq!(space.get_tv(b), Some(TruthValue::simple(0.75, 0.5)));
        let err = store.store_atom(&space, b).unwrap_err().to_string();
        assert!(err.contains("does not write"), "{err}");
        store.close().unwrap();
    }
}

#[test]
fn a_read_write_proxy_reads_one_store_and_writes_the_other() {
    let (reader, writer) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let space = AtomSpace::new();
    let (r, w) = (lmdb(&space, &reader), lmdb(&space, &writer));
    let proxy = atom(&space, "(ReadWriteProxy \"rw\")");
    space.add_link(PROXY_PARAMETERS_LINK, &[proxy, space.add_link(LIST_LINK, &[r, w]).unwrap()]).unwrap();
    let mut store = open_node(&space, proxy).unwrap();
    let c = atom(&space, "(Concept \"c\" (stv 0.125 0.5))");
    store.store_atom(&space, c).unwrap();
    assert!(!store.fetch_atom(&space, c).unwrap(), "the reader does not have it");
    store.close().unwrap();
    assert_eq!(stored_in(&writer, "c"), Some(TruthValue::simple(0.125, 0.5)));
    assert_eq!(stored_in(&reader, "c"), None);
}

#[test]
fn a_null_proxy_takes_everything_and_keeps_nothing() {
    let space = AtomSpace::new();
    let proxy = atom(&space, "(NullProxy \"n\")");
    let mut store = open_node(&space, proxy).unwrap();
    let a = atom(&space, "(Concept \"a\")");
    store.store_atom(&space, a).unwrap();
    assert!(!store.fetch_atom(&space, a).unwrap());
    store.barrier().unwrap();
    store.close().unwrap();
}

#[test]
fn a_badly_configured_proxy_does_not_open() {
    let space = AtomSpace::new();
    let cases = [
        ("(WriteThruProxy \"no params\")", "no ProxyParametersLink"),
        ("(ProxyParameters (WriteThruProxy \"bad target\") (Concept \"bar\"))", "must be a StorageNode"),
        ("(ProxyParameters (WriteThruProxy \"self\") (WriteThruProxy \"self\"))", "nest more than"),
        ("(ProxyParameters (CachingProxy \"cache\") (List (NullProxy \"n\") (NullProxy \"m\")))", "one target"),
        ("(ProxyParameters (WriteBufferProxy \"zero\") (NullProxy \"n\") (Number 0))", "above 0"),
        ("(ProxyParameters (ReadWriteProxy \"one\") (NullProxy \"n\"))", "two targets"),
    ];
    for (text, want) in cases {
        let h = atom(&space, text);
        let proxy = match space.get_type(h) {
            Some(PROXY_PARAMETERS_LINK) => space.outgoing(h).unwrap()[0],
            _ => h,
        };
        let err = open_node(&space, proxy).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(want), "{text}: {err}");
    }
}

/// A DynamicDataProxy runs, at each fetch, the procedure the proxy atom
/// holds under the key on the atom fetched; a value that is no procedure
/// is copied. It keeps no atoms: writes are refused.
#[test]
fn a_dynamic_data_proxy_computes_values_when_they_are_fetched() {
    let space = AtomSpace::new();
    let proxy = atom(&space, "(DynamicDataProxy \"dyn\")");
    let double = atom(&space, "(DefinedSchema \"double\")");
    atom(&space, "(Define (DefinedSchema \"double\") (Lambda (Variable \"$x\") (Times (ValueOf (Variable \"$x\") (Predicate \"price\")) (Number 2))))");
    let [price, doubled, label, missing] = ["price", "doubled", "label", "missing"].map(|k| space.add_node(PREDICATE_NODE, k).unwrap());
    space.set_value(proxy, doubled, Value::Atom(double)).unwrap();
    space.set_value(proxy, label, Value::String(vec!["fixed".to_string()].into())).unwrap();
    let a = atom(&space, "(Concept \"a\")");
    space.set_value(a, price, Value::float(vec![3.0])).unwrap();
    let mut store = open_node(&space, proxy).unwrap();
    assert!(store.fetch_value(&space, a, doubled).unwrap());
    assert_eq!(space.get_value(a, doubled), Some(Value::float(vec![6.0])));
    // Computed again at each fetch, from what the atom holds then.
    space.set_value(a, price, Value::float(vec![5.0])).unwrap();
    assert!(store.fetch_value(&space, a, doubled).unwrap());
    assert_eq!(space.get_value(a, doubled), Some(Value::float(vec![10.0])));
    // fetch-atom: every key the proxy has.
    let b = atom(&space, "(Concept \"b\")");
    space.set_value(b, price, Value::float(vec![0.5])).unwrap();
    assert!(store.fetch_atom(&space, b).unwrap());
    assert_eq!(space.get_value(b, doubled), Some(Value::float(vec![1.0])));
    assert_eq!(space.get_value(b, label), Some(Value::String(vec!["fixed".to_string()].into())));
    assert!(!store.fetch_value(&space, b, missing).unwrap(), "the proxy has nothing under the key");
    // The ExecutionOutputLinks made to run it are gone again.
    assert!([a, b].iter().all(|&x| space.get_link(LIST_LINK, &[x]).is_none()));
    assert_eq!(space.count_of_type(EXECUTION_OUTPUT_LINK, false), 0);
    assert!(store.monitor().contains("3 values computed, 1 copied"), "{}", store.monitor());
    let err = store.store_atom(&space, a).unwrap_err().to_string();
    assert!(err.contains("does not write"), "{err}");
    store.close().unwrap();
}

/// A WriteBufferProxy over an LMDB store in `dir`, waiting `seconds`.
fn write_buffer(space: &AtomSpace, dir: &tempfile::TempDir, seconds: &str) -> Box<dyn atomweave_store::StorageNode> {
    let target = lmdb(space, dir);
    let proxy = atom(space, "(WriteBufferProxy \"buffer\")");
    let wait = atom(space, &format!("(Number {seconds})"));
    space.add_link(PROXY_PARAMETERS_LINK, &[proxy, target, wait]).unwrap();
    open_node(space, proxy).unwrap()
}

#[test]
fn a_write_buffer_holds_writes_until_a_barrier_and_writes_each_atom_once() {
    let dir = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let mut store = write_buffer(&space, &dir, "3600");
    let a = atom(&space, "(Concept \"a\")");
    for i in 0..100 {
        space.set_tv(a, TruthValue::simple(i as f64 / 100.0, 0.5)).unwrap();
        store.store_atom(&space, a).unwrap();
    }
    assert!(store.monitor().contains("waiting 1 atoms and 0 values; 0 flushes"), "{}", store.monitor());
    store.barrier().unwrap();
    assert!(store.monitor().contains("waiting 0 atoms and 0 values; 1 flushes (every 3600 s) wrote 1 atoms"), "{}", store.monitor());
    // Close writes what is still waiting; an atom extracted meanwhile is not stored.
    let b = atom(&space, "(Concept \"b\" (stv 0.25 0.5))");
    let gone = atom(&space, "(Concept \"gone\" (stv 0.5 0.5))");
    store.store_atom(&space, b).unwrap();
    store.store_atom(&space, gone).unwrap();
    space.extract(gone, false).unwrap();
    store.close().unwrap();
    assert_eq!(stored_in(&dir, "a"), Some(TruthValue::simple(0.99, 0.5)));
    assert_eq!(stored_in(&dir, "b"), Some(TruthValue::simple(0.25, 0.5)));
    assert_eq!(stored_in(&dir, "gone"), None);
}

/// Waits (30 s at most) until the buffer's drain thread has written an atom.
fn wait_for_the_drain(store: &dyn atomweave_store::StorageNode) {
    let started = std::time::Instant::now();
    while !store.monitor().contains("wrote 1 atoms") {
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the drain thread never wrote: {}", store.monitor());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_write_buffer_drains_on_its_own_after_its_interval() {
    let dir = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let mut store = write_buffer(&space, &dir, "0.05");
    let a = atom(&space, "(Concept \"a\" (stv 0.5 0.5))");
    store.store_atom(&space, a).unwrap();
    wait_for_the_drain(&*store);
    store.close().unwrap();
    assert_eq!(stored_in(&dir, "a"), Some(TruthValue::simple(0.5, 0.5)));
}

#[test]
fn one_store_named_along_two_paths_is_opened_once() {
    // Reads from the store, writes to it through a buffer: upstream's
    // StorageNode is one atom, one connection.
    let dir = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let target = lmdb(&space, &dir);
    let buffer = atom(&space, "(WriteBufferProxy \"w\")");
    space.add_link(PROXY_PARAMETERS_LINK, &[buffer, target]).unwrap();
    let cache = atom(&space, "(CachingProxy \"c\")");
    space.add_link(PROXY_PARAMETERS_LINK, &[cache, target]).unwrap();
    let rw = atom(&space, "(ReadWriteProxy \"rw\")");
    space.add_link(PROXY_PARAMETERS_LINK, &[rw, space.add_link(LIST_LINK, &[cache, buffer]).unwrap()]).unwrap();
    let mut store = open_node(&space, rw).unwrap();
    let a = atom(&space, "(Concept \"a\" (stv 0.5 0.25))");
    store.store_atom(&space, a).unwrap();
    store.barrier().unwrap();
    // The cache answers what the space holds, and asks the store otherwise.
    assert!(store.fetch_atom(&space, a).unwrap());
    let fresh = AtomSpace::new();
    let fa = fresh.add_node(CONCEPT_NODE, "a").unwrap();
    assert!(store.fetch_atom(&fresh, fa).unwrap());
    assert_eq!(fresh.get_tv(fa), Some(TruthValue::simple(0.5, 0.25)));
    let report = store.monitor();
    assert!(report.contains("1 reads the space answered, 1 passed on"), "{report}");
    store.close().unwrap();
    assert_eq!(stored_in(&dir, "a"), Some(TruthValue::simple(0.5, 0.25)));
}

/// A buffered write no store could take (a stream value) is reported once
/// and dropped, not put back to fail every drain after; the writes around
/// it go on being made.
#[test]
fn a_buffered_write_no_store_takes_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let mut store = write_buffer(&space, &dir, "0.05");
    let streaming = atom(&space, "(Concept \"streaming\")");
    let key = atom(&space, "(Predicate \"k\")");
    space.set_value(streaming, key, atomweave::Value::Stream(atomweave::StreamValue::random(2))).unwrap();
    store.store_atom(&space, streaming).unwrap();
    let a = atom(&space, "(Concept \"a\" (stv 0.5 0.5))");
    store.store_atom(&space, a).unwrap();
    wait_for_the_drain(&*store);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let b = atom(&space, "(Concept \"b\")");
    let first = store.store_atom(&space, b).map_err(|e| e.to_string());
    assert!(first.as_ref().is_err_and(|e| e.contains("is not stored")), "{first:?}");
    store.store_atom(&space, b).unwrap();
    store.barrier().unwrap();
    store.close().unwrap();
    assert_eq!(stored_in(&dir, "a"), Some(TruthValue::simple(0.5, 0.5)));
    assert!(stored_in(&dir, "b").is_some());
    assert_eq!(stored_in(&dir, "streaming"), None);
}

/// Child half of `a_drained_write_survives_a_crash`: stores through a
/// buffer of a tenth of a second, waits until the drain thread has taken
/// it and a while more, says so, and waits to be killed.
#[test]
#[ignore = "a child half: its parent test runs it"]
fn drained_write_child() {
    let dir = std::env::var("ATOMWEAVE_DRAIN_DIR").expect("ATOMWEAVE_DRAIN_DIR (set by the parent test)");
    let space = AtomSpace::new();
    let target = atom(&space, &format!("(LmdbStorageNode \"lmdb://{dir}\")"));
    let proxy = atom(&space, "(WriteBufferProxy \"buffer\")");
    let wait = atom(&space, "(Number 0.1)");
    space.add_link(PROXY_PARAMETERS_LINK, &[proxy, target, wait]).unwrap();
    let mut store = open_node(&space, proxy).unwrap();
    let a = atom(&space, "(Concept \"a\" (stv 0.5 0.5))");
    store.store_atom(&space, a).unwrap();
    wait_for_the_drain(&*store);
    // The drain's barrier follows its writes.
    std::thread::sleep(std::time::Duration::from_secs(2));
    println!("drained");
    std::thread::sleep(std::time::Duration::from_secs(600));
}

/// A write the buffer's drain thread passed on is durable then, as the
/// interval promises: the drain ends with the targets' barrier. It once
/// only handed the write to LMDB's own pending batch, which a crash lost.
#[test]
fn a_drained_write_survives_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = ChildTest::new("drained_write_child").env("ATOMWEAVE_DRAIN_DIR", dir.path()).spawn();
    let drained = child.wait_for("drained").is_some();
    let ended = child.kill();
    assert!(drained, "the child stopped before its write was drained: {}", ended.text());
    assert_eq!(stored_in(&dir, "a"), Some(TruthValue::simple(0.5, 0.5)));
}
