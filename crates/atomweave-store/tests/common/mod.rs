//! What the store tests share: a random space with every kind of value, and
//! a handle-free text form of a space to compare spaces by.

use std::collections::BTreeSet;

use atomweave::types::*;
use atomweave::{AtomSpace, Handle, TruthValue, Value};

/// Every atom of the space with its values, as text that does not depend
/// on handles (members of unordered links sorted by their text).
pub fn canon_set(space: &AtomSpace) -> BTreeSet<String> {
    fn canon(space: &AtomSpace, h: Handle) -> String {
        let t = space.get_type(h).unwrap();
        let mut s = format!("({}", t.name());
        if let Some(n) = space.name(h) {
            s += &format!(" {n:?}");
        }
        let mut members: Vec<String> = space.outgoing(h).unwrap().iter().map(|&m| canon(space, m)).collect();
        if t.is_unordered() {
            members.sort();
        }
        for m in members {
            s += " ";
            s += &m;
        }
        s + ")"
    }
    space
        .handles_by_type(ATOM, true)
        .map(|h| {
            let mut kv: Vec<String> = space
                .key_values(h)
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::Atom(a) => canon(space, *a),
                        Value::Link(items) => format!("{:?}", items.iter().map(|x| if let Value::Atom(a) = x { canon(space, *a) } else { format!("{x:?}") }).collect::<Vec<_>>()),
                        v => format!("{v:?}"),
                    };
                    format!("{}={v}", canon(space, *k))
                })
                .collect();
            kv.sort();
            format!("{} {:?} {kv:?}", canon(space, h), space.get_tv(h).unwrap())
        })
        .collect()
}

/// A random space with truth values and every kind of value.
pub fn random_space(n: usize) -> AtomSpace {
    let space = AtomSpace::new();
    let mut rs = atomweave_bench::RandomSpace::new(7, 0.3);
    rs.grow(&mut &space, n, |_| {}).unwrap();
    let key = space.add_node(PREDICATE_NODE, "key").unwrap();
    for (i, &h) in rs.atoms.iter().enumerate() {
        match i % 7 {
            0 => space.set_tv(h, TruthValue::simple(0.25 + i as f64 / 1e6, 0.5)).unwrap(),
            1 => space.set_tv(h, TruthValue::count(0.5, 0.25, i as f64)).unwrap(),
            2 => space.set_value(h, key, Value::float(vec![i as f64, -1.5])).unwrap(),
            3 => space.set_value(h, key, Value::string(["a", "ü"])).unwrap(),
            4 => space.set_value(h, key, Value::link(vec![Value::Atom(rs.atoms[i / 2]), Value::float(vec![2.0])])).unwrap(),
            5 => space.set_value(h, key, Value::bool(vec![true, false])).unwrap(),
            _ => {}
        }
    }
    // A name too long for an LMDB key, and a link with too many members for one.
    let long = space.add_node(CONCEPT_NODE, &"x".repeat(2000)).unwrap();
    let many: Vec<Handle> = rs.atoms[..100].to_vec();
    space.add_link(LIST_LINK, &many).unwrap();
    space.add_link(SET_LINK, &[long, rs.atoms[3], rs.atoms[1]]).unwrap();
    space
}
