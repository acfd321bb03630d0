//! Shared test helpers: a brute-force check of every index invariant.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};

use atomweave::{AtomRead, Handle, Type};

/// Checks every index against a brute-force scan of the atoms, panicking
/// with the first violation.
pub fn check_invariants(r: &impl AtomRead) {
    let atoms: Vec<Handle> = r.all_atoms().collect();
    let set: HashSet<Handle> = atoms.iter().copied().collect();
    assert_eq!(set.len(), atoms.len(), "all_atoms yields duplicates");
    assert_eq!(r.size(), atoms.len(), "size() disagrees with the atoms");
    let links = atoms.iter().filter(|&&h| r.is_link(h)).count();
    assert_eq!(r.num_links(), links);
    assert_eq!(r.num_nodes(), atoms.len() - links);

    let mut by_type: HashMap<Type, HashSet<Handle>> = HashMap::new();
    for &h in &atoms {
        let t = r.get_type(h).expect("live atom has a type");
        by_type.entry(t).or_default().insert(h);
        if r.is_link(h) {
            let out = r.outgoing(h).unwrap();
            assert_eq!(r.get_link(t, out), Some(h), "get_link of {h:?}");
            for &x in out {
                assert!(set.contains(&x), "{h:?} contains the dead atom {x:?}");
                let n = r.incoming(x).unwrap().iter().filter(|&&l| l == h).count();
                assert_eq!(n, 1, "{h:?} appears {n} times in the incoming set of its member {x:?}");
            }
            assert!(r.name(h).is_none());
        } else {
            let name = r.name(h).expect("node has a name");
            assert_eq!(r.get_node(t, name), Some(h), "get_node of {h:?}");
            assert_eq!(r.arity(h), Some(0));
        }
        for &l in r.incoming(h).unwrap() {
            assert!(set.contains(&l), "incoming set of {h:?} holds the dead atom {l:?}");
            assert!(r.outgoing(l).unwrap().contains(&h), "{l:?} is in the incoming set of {h:?} but does not contain it");
        }
        let inc: HashSet<Handle> = r.incoming(h).unwrap().iter().copied().collect();
        assert_eq!(inc.len(), r.incoming_size(h).unwrap(), "duplicate in the incoming set of {h:?}");
    }
    for (t, hs) in &by_type {
        assert_eq!(r.count_of_type(*t, false), hs.len(), "count of {t}");
        let scanned: HashSet<Handle> = r.handles_by_type(*t, false).collect();
        assert_eq!(&scanned, hs, "handles_by_type({t})");
    }
}

/// A content key for an atom that is the same in every space: type, name or
/// members (unordered members sorted by key), truth value and values when
/// `with_values`.
pub fn canon(r: &impl AtomRead, h: Handle, with_values: bool) -> String {
    let t = r.get_type(h).expect("live atom");
    let mut s = format!("({}", t.name());
    if let Some(name) = r.name(h) {
        s.push_str(&format!(" {name:?}"));
    } else {
        let mut kids: Vec<String> = r.outgoing(h).unwrap().iter().map(|&c| canon(r, c, with_values)).collect();
        if t.is_unordered() {
            kids.sort();
        }
        for k in kids {
            s.push(' ');
            s.push_str(&k);
        }
    }
    if with_values {
        let tv = r.get_tv(h).unwrap();
        if !tv.is_default() {
            s.push_str(&format!(" tv={tv:?}"));
        }
        let mut kvs: Vec<String> = r.key_values(h).iter().map(|(k, v)| format!("{}={}", canon(r, *k, false), canon_value(r, v))).collect();
        kvs.sort();
        for kv in kvs {
            s.push_str(&format!(" {kv}"));
        }
    }
    s.push(')');
    s
}

fn canon_value(r: &impl AtomRead, v: &atomweave::Value) -> String {
    match v {
        atomweave::Value::Atom(h) => canon(r, *h, false),
        atomweave::Value::Link(vs) => format!("[{}]", vs.iter().map(|v| canon_value(r, v)).collect::<Vec<_>>().join(" ")),
        other => format!("{other:?}"),
    }
}

/// Every atom's content key.
pub fn atom_set(r: &impl AtomRead, with_values: bool) -> std::collections::BTreeSet<String> {
    r.all_atoms().map(|h| canon(r, h, with_values)).collect()
}
