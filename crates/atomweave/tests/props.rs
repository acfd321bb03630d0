//! Property tests: random add/extract/value sequences against a brute-force
//! model, on both layers.

mod common;

use std::collections::{HashMap, HashSet};

use atomweave::types::*;
use atomweave::{AtomRead, AtomSpace, AtomTable, Error, Handle, Result, TruthValue, Type};
use common::check_invariants;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Node(usize, u8),
    Link(usize, Vec<usize>),
    Extract(usize, bool),
    SetTv(usize, f64),
}

const NODE_TYPES: [Type; 3] = [CONCEPT_NODE, PREDICATE_NODE, WORD_NODE];
const LINK_TYPES: [Type; 4] = [LIST_LINK, INHERITANCE_LINK, SET_LINK, EVALUATION_LINK];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..NODE_TYPES.len(), 0u8..40).prop_map(|(t, n)| Op::Node(t, n)),
        4 => (0..LINK_TYPES.len(), prop::collection::vec(any::<usize>(), 0..4)).prop_map(|(t, m)| Op::Link(t, m)),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(i, r)| Op::Extract(i, r)),
        1 => (any::<usize>(), 0.0..1.0f64).prop_map(|(i, s)| Op::SetTv(i, s)),
    ]
}

/// The operations under test, on either layer.
trait Layer {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle>;
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle>;
    fn extract(&mut self, h: Handle, recursive: bool) -> Result<()>;
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()>;
    fn get_tv(&self, h: Handle) -> Option<TruthValue>;
    fn check(&self, live: &HashSet<Handle>);
}

impl Layer for AtomTable {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        AtomTable::add_node(self, t, name)
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle> {
        AtomTable::add_link(self, t, out)
    }
    fn extract(&mut self, h: Handle, recursive: bool) -> Result<()> {
        AtomTable::extract(self, h, recursive)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        AtomTable::set_tv(self, h, tv)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        AtomRead::get_tv(self, h)
    }
    fn check(&self, live: &HashSet<Handle>) {
        check_invariants(self);
        assert_eq!(&self.all_atoms().collect::<HashSet<_>>(), live);
    }
}

impl Layer for AtomSpace {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        AtomSpace::add_node(self, t, name)
    }
    fn add_link(&mut self, t: Type, out: &[Handle]) -> Result<Handle> {
        AtomSpace::add_link(self, t, out)
    }
    fn extract(&mut self, h: Handle, recursive: bool) -> Result<()> {
        AtomSpace::extract(self, h, recursive)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        AtomSpace::set_tv(self, h, tv)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        AtomSpace::get_tv(self, h)
    }
    fn check(&self, live: &HashSet<Handle>) {
        let r = self.read().unwrap();
        check_invariants(&r);
        assert_eq!(&r.all_atoms().collect::<HashSet<_>>(), live);
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Node(Type, String),
    Link(Type, Vec<Handle>),
}

/// Runs `ops` on `layer` and on a model; they must agree at every step.
fn run(layer: &mut impl Layer, ops: &[Op]) {
    let mut model: HashMap<Key, Handle> = HashMap::new();
    let mut content: HashMap<Handle, Key> = HashMap::new();
    let mut ever: Vec<Handle> = Vec::new();
    let mut tvs: HashMap<Handle, TruthValue> = HashMap::new();
    let pick = |ever: &Vec<Handle>, i: usize| (!ever.is_empty()).then(|| ever[i % ever.len()]);
    for op in ops {
        match op {
            Op::Node(t, n) => {
                let key = Key::Node(NODE_TYPES[*t], format!("n{n}"));
                let h = layer.add_node(NODE_TYPES[*t], &format!("n{n}")).unwrap();
                match model.get(&key) {
                    Some(&old) => assert_eq!(h, old),
                    None => {
                        assert!(!ever.contains(&h), "handle {h:?} reused");
                        model.insert(key.clone(), h);
                        content.insert(h, key);
                        ever.push(h);
                    }
                }
            }
            Op::Link(t, members) => {
                let ty = LINK_TYPES[*t];
                let out: Vec<Handle> = members.iter().filter_map(|&i| pick(&ever, i)).collect();
                let result = layer.add_link(ty, &out);
                if out.iter().any(|h| !content.contains_key(h)) {
                    match result {
                        Err(Error::InvalidHandle(dead)) => assert!(out.contains(&dead) && !content.contains_key(&dead)),
                        other => panic!("a link with a dead member gave {other:?}"),
                    }
                    continue;
                }
                let h = result.unwrap();
                let mut canon = out.clone();
                if ty.is_unordered() {
                    canon.sort();
                }
                let key = Key::Link(ty, canon);
                match model.get(&key) {
                    Some(&old) => assert_eq!(h, old),
                    None => {
                        assert!(!ever.contains(&h), "handle {h:?} reused");
                        model.insert(key.clone(), h);
                        content.insert(h, key);
                        ever.push(h);
                    }
                }
            }
            Op::Extract(i, recursive) => {
                let Some(h) = pick(&ever, *i) else { continue };
                let result = layer.extract(h, *recursive);
                if !content.contains_key(&h) {
                    assert_eq!(result, Err(Error::InvalidHandle(h)));
                    continue;
                }
                // Everything that contains h, transitively.
                let mut doomed = vec![h];
                let mut k = 0;
                while k < doomed.len() {
                    let x = doomed[k];
                    for (l, key) in &content {
                        if let Key::Link(_, out) = key {
                            if out.contains(&x) && !doomed.contains(l) {
                                doomed.push(*l);
                            }
                        }
                    }
                    k += 1;
                }
                if doomed.len() > 1 && !recursive {
                    assert!(matches!(result, Err(Error::HasIncoming { .. })), "{result:?}");
                    continue;
                }
                result.unwrap();
                for d in doomed {
                    let key = content.remove(&d).unwrap();
                    model.remove(&key);
                    tvs.remove(&d);
                }
            }
            Op::SetTv(i, s) => {
                let Some(h) = pick(&ever, *i) else { continue };
                let tv = TruthValue::simple(*s, 0.5);
                let result = layer.set_tv(h, tv);
                if content.contains_key(&h) {
                    result.unwrap();
                    tvs.insert(h, tv);
                } else {
                    assert_eq!(result, Err(Error::InvalidHandle(h)));
                }
            }
        }
    }
    for &h in content.keys() {
        assert_eq!(layer.get_tv(h), Some(tvs.get(&h).copied().unwrap_or_default()));
    }
    layer.check(&content.keys().copied().collect());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn table_indexes_hold(ops in prop::collection::vec(op(), 1..250)) {
        run(&mut AtomTable::new(), &ops);
    }

    #[test]
    fn space_indexes_hold(ops in prop::collection::vec(op(), 1..250)) {
        run(&mut AtomSpace::new(), &ops);
    }
}
