//! Proxies pass StorageNode calls to the stores their ProxyParametersLink
//! names: writes through, reads through, in turn or in order.

use atomweave::sexpr::load_str;
use atomweave::types::*;
use atomweave::{AtomSpace, Handle, TruthValue};
use atomweave_store::proxy::open_node;

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
        ("(ProxyParameters (CachingProxy \"cache\") (NullProxy \"n\"))", "not supported"),
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
