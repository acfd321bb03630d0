//! The rocks:// store against real RocksDB databases: a store written key
//! by key in upstream's layout (`rocks_fixture`) read whole; what atomweave
//! writes read back the same, and byte for byte what the fixture writes;
//! bad directories, versions and records refused with clear errors.

use atomweave::types::*;
use atomweave::{AtomSpace, TruthValue, Value};
use atomweave_store::{open, open_existing};

mod common;
mod rocks_fixture;
use common::{canon_set, load_store, random_space};
use rocks_fixture::{write_sample, Writer};

fn url(d: &tempfile::TempDir) -> String {
    format!("rocks://{}", d.path().join("db").display())
}

#[test]
fn an_upstream_store_is_read_whole() {
    let d = tempfile::tempdir().unwrap();
    write_sample(&d.path().join("db"));
    let space = load_store(&url(&d));
    let node = |t, n: &str| space.get_node(t, n).unwrap_or_else(|| panic!("({t:?} {n:?}) loaded"));
    let [cat, animal, key, far] = [(CONCEPT_NODE, "cat"), (CONCEPT_NODE, "animal"), (PREDICATE_NODE, "key"), (CONCEPT_NODE, "far")].map(|(t, n)| node(t, n));
    let quoted = node(CONCEPT_NODE, "say \"hi\"\\");
    let inh = space.get_link(INHERITANCE_LINK, &[cat, animal]).unwrap();
    let list = space.get_link(LIST_LINK, &[cat, inh]).unwrap();
    let empty = space.get_link(LIST_LINK, &[]).unwrap();
    let var = node(VARIABLE_NODE, "$x");
    assert!(space.get_link(LAMBDA_LINK, &[var, cat]).is_some(), "a scope link, after its hash");
    // The truth value's key is the truth value, not an atom of the space.
    assert_eq!(space.get_node(PREDICATE_NODE, atomweave::sexpr::TV_KEY), None);
    assert_eq!(space.get_tv(inh), Some(TruthValue::simple(0.9, 0.8)));
    assert_eq!(space.get_tv(cat), Some(TruthValue::count(1.0, 0.5, 42.0)));
    assert_eq!(space.get_value(cat, key), Some(Value::float(vec![1.0, 2.5, -3.0, 1e20])));
    assert_eq!(space.get_value(animal, key), Some(Value::string(["a", "b\"c"])));
    let x = node(CONCEPT_NODE, "x");
    let y_list = space.get_link(LIST_LINK, &[node(CONCEPT_NODE, "y")]).unwrap();
    assert_eq!(space.get_value(inh, key), Some(Value::link(vec![Value::Atom(x), Value::float(vec![0.5]), Value::Atom(y_list)])));
    assert_eq!(space.get_value(list, key), Some(Value::bool(vec![true, false, true])));
    assert_eq!(space.get_value(empty, key), Some(Value::Void));
    assert_eq!(space.get_value(far, key), Some(Value::Atom(cat)));
    assert_eq!(space.get_tv(quoted), Some(TruthValue::DEFAULT));
    // 10 stored atoms (the truth value's key aside), 3 more held in values.
    assert_eq!(space.size(), 13);
}

#[test]
fn single_atom_calls_read_an_upstream_store() {
    let d = tempfile::tempdir().unwrap();
    write_sample(&d.path().join("db"));
    let space = AtomSpace::new();
    let mut store = open(&url(&d)).unwrap();
    let cat = space.add_node(CONCEPT_NODE, "cat").unwrap();
    let key = space.add_node(PREDICATE_NODE, "key").unwrap();
    assert!(store.fetch_atom(&space, cat).unwrap());
    assert_eq!(space.get_tv(cat), Some(TruthValue::count(1.0, 0.5, 42.0)));
    assert_eq!(space.get_value(cat, key), Some(Value::float(vec![1.0, 2.5, -3.0, 1e20])));
    // cat is in the Inheritance, the List and the Lambda; recursively, the List holds the Inheritance too.
    assert_eq!(store.fetch_incoming_set(&space, cat, false).unwrap(), 3);
    assert_eq!(store.fetch_incoming_by_type(&space, cat, LIST_LINK).unwrap(), 1);
    assert_eq!(store.fetch_incoming_set(&space, cat, true).unwrap(), 3);
    assert_eq!(store.load_atoms_of_type(&space, CONCEPT_NODE).unwrap(), 4);
    let dog = space.add_node(CONCEPT_NODE, "dog").unwrap();
    assert!(!store.fetch_atom(&space, dog).unwrap());
    store.close().unwrap();
}

#[test]
fn a_random_space_survives_store_close_open_load() {
    let space = random_space(5_000);
    let want = canon_set(&space);
    let d = tempfile::tempdir().unwrap();
    let mut store = open(&url(&d)).unwrap();
    let stored = store.store_atomspace(&space, &mut |_| {}).unwrap();
    assert_eq!(stored as usize, space.size());
    store.close().unwrap();
    assert_eq!(canon_set(&load_store(&url(&d))), want);
    // Stored again: nothing doubles, values replaced.
    let mut store = open(&url(&d)).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    let again = load_store(&url(&d));
    assert_eq!((again.size(), canon_set(&again)), (space.size(), want));
}

#[test]
fn every_single_atom_call() {
    let d = tempfile::tempdir().unwrap();
    common::exercise_single_atom_calls(&url(&d));
}

#[test]
fn incoming_sets_at_every_position() {
    let d = tempfile::tempdir().unwrap();
    common::exercise_incoming_at_every_position(&url(&d));
}

#[test]
fn deleted_atoms_leave_no_key_behind() {
    let d = tempfile::tempdir().unwrap();
    write_sample(&d.path().join("db"));
    let space = load_store(&url(&d));
    let cat = space.get_node(CONCEPT_NODE, "cat").unwrap();
    let mut store = open(&url(&d)).unwrap();
    assert!(!store.delete(&space, cat, false).unwrap(), "links hold it");
    assert!(store.delete(&space, cat, true).unwrap());
    store.close().unwrap();
    let db = rocksdb::DB::open_default(d.path().join("db")).unwrap();
    let left: Vec<String> = Writer::all(&db).into_iter().map(|(k, v)| format!("{k} {v}")).collect();
    let cat_sid = "2";
    // Only a value that holds cat's text is left of it (values hold text, not ids).
    for kv in left.iter().filter(|kv| !kv.starts_with("k@01:")) {
        assert!(!kv.contains("\"cat\"") && !kv.starts_with(&format!("k@{cat_sid}:")) && !kv.starts_with(&format!("i@{cat_sid}:")), "left: {kv}");
    }
    // The scope link left its hash's list; animal's incoming index is empty.
    assert!(!left.iter().any(|kv| kv.starts_with("h@") || kv.starts_with("i@3:")), "{left:?}");
    drop(db);
    let after = load_store(&url(&d));
    // cat comes back only as the atom a value holds: no links, no values.
    let cat = after.get_node(CONCEPT_NODE, "cat").unwrap();
    assert_eq!((after.incoming_size(cat), after.get_tv(cat)), (Some(0), Some(TruthValue::DEFAULT)));
    assert!(after.get_node(CONCEPT_NODE, "animal").is_some() && after.handles_by_type(INHERITANCE_LINK, false).next().is_none());
}

/// What atomweave writes is what the fixture writes, key for key.
#[test]
fn atomweave_writes_upstreams_bytes() {
    let d = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let cat = space.add_node(CONCEPT_NODE, "cat").unwrap();
    let animal = space.add_node(CONCEPT_NODE, "say \"hi\"\\").unwrap();
    let inh = space.add_link(INHERITANCE_LINK, &[cat, animal]).unwrap();
    let key = space.add_node(PREDICATE_NODE, "key").unwrap();
    space.set_tv(inh, TruthValue::simple(0.9, 0.8)).unwrap();
    space.set_value(cat, key, Value::float(vec![1.0, 2.5, -3.0, 1e20, 1e-5])).unwrap();
    space.set_value(inh, key, Value::link(vec![Value::string(["a\"b"]), Value::Atom(cat), Value::bool(vec![true, false])])).unwrap();
    let mut store = open(&url(&d)).unwrap();
    for h in [cat, animal, inh] {
        store.store_atom(&space, h).unwrap();
    }
    store.close().unwrap();
    let ours = Writer::all(&rocksdb::DB::open_default(d.path().join("db")).unwrap());

    let e = tempfile::tempdir().unwrap();
    let w = Writer::create(e.path());
    // Ids in the order atomweave issues them: an atom, then its keys.
    w.header("2", 6);
    w.atom(1, "(ConceptNode \"cat\")", None, &[]);
    w.atom(2, "(PredicateNode \"key\")", None, &[]);
    w.atom(3, "(ConceptNode \"say \\\"hi\\\"\\\\\")", None, &[]);
    w.atom(4, "(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"say \\\"hi\\\"\\\\\"))", Some("InheritanceLink"), &[1, 3]);
    w.atom(5, "(PredicateNode \"*-TruthValueKey-*\")", None, &[]);
    w.value(1, 2, "(FloatValue 1 2.5 -3 1e+20 1e-05)");
    w.value(4, 5, "(SimpleTruthValue 0.9 0.8)");
    w.value(4, 2, "(LinkValue (StringValue \"a\\\"b\")(ConceptNode \"cat\")(BoolValue 1 0))");
    let mut want = Writer::all(&w.db);
    // The highest id: 5 (`*-NextUnusedAID-*` is the last issued).
    want.retain(|(k, _)| k != "*-NextUnusedAID-*");
    want.push(("*-NextUnusedAID-*".into(), "5".into()));
    want.sort();
    assert_eq!(ours, want);
}

#[test]
fn bad_directories_versions_and_records_are_refused() {
    // Files, but no RocksDB.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("notes.txt"), "hi").unwrap();
    let err = open(&format!("rocks://{}", d.path().display())).err().unwrap().to_string();
    assert!(err.contains("not a RocksDB store"), "{err}");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "nothing written");
    // Nothing there, for reading.
    let e = tempfile::tempdir().unwrap();
    assert!(open_existing(&url(&e)).err().unwrap().to_string().contains("no store there"));

    // A version this code does not know.
    let v = tempfile::tempdir().unwrap();
    Writer::create(v.path()).header("9", 1);
    let err = open(&format!("rocks://{}", v.path().display())).err().unwrap().to_string();
    assert!(err.contains("version `9`"), "{err}");
    // A RocksDB database that is no AtomSpace.
    let o = tempfile::tempdir().unwrap();
    Writer::create(o.path()).put("hello", "world");
    assert!(open(&format!("rocks://{}", o.path().display())).err().unwrap().to_string().contains("not an AtomSpace store"));
    // Frames.
    let f = tempfile::tempdir().unwrap();
    let w = Writer::create(f.path());
    w.header("2", 3);
    w.put("f@(AtomSpace \"base\")", "2");
    drop(w);
    assert!(open(&format!("rocks://{}", f.path().display())).err().unwrap().to_string().contains("frames"));

    // A damaged s-expression: the load says which atom, and what.
    let c = tempfile::tempdir().unwrap();
    let w = Writer::create(c.path());
    w.header("2", 2);
    w.atom(1, "(ConceptNode \"a\")", None, &[]);
    w.put("a@2:", "(ListLink (ConceptNode \"a\")");
    drop(w);
    let mut store = open_existing(&format!("rocks://{}", c.path().display())).unwrap();
    let err = store.load_atomspace(&AtomSpace::new(), &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("atom 2") && err.contains("(ListLink"), "{err}");
    // A type not known here, named.
    let t = tempfile::tempdir().unwrap();
    let w = Writer::create(t.path());
    w.header("2", 1);
    w.atom(1, "(MartianNode \"a\")", None, &[]);
    drop(w);
    let mut store = open_existing(&format!("rocks://{}", t.path().display())).unwrap();
    assert!(store.load_atomspace(&AtomSpace::new(), &mut |_| {}).unwrap_err().to_string().contains("MartianNode"));
}

/// A directory that holds atomweave's own LMDB store, made when rocks://
/// named it, still opens, as LMDB.
#[test]
fn an_lmdb_store_under_a_rocks_url_still_opens() {
    let d = tempfile::tempdir().unwrap();
    let space = random_space(500);
    let mut store = open(&format!("lmdb://{}", d.path().display())).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    let back = load_store(&format!("rocks://{}", d.path().display()));
    assert_eq!(canon_set(&back), canon_set(&space));
}

/// A value upstream's layout cannot hold (an AtomSpace held as a value)
/// is refused, naming it, and its batch leaves nothing behind: the atoms
/// stored with it are not in the store, the ids it issued are issued again.
#[test]
fn a_refused_batch_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let space = AtomSpace::new();
    let [x, cat, key] = [(VARIABLE_NODE, "$x"), (CONCEPT_NODE, "cat"), (PREDICATE_NODE, "key")].map(|(t, n)| space.add_node(t, n).unwrap());
    let lambda = space.add_link(LAMBDA_LINK, &[x, cat]).unwrap();
    space.set_value(x, key, Value::Space(AtomSpace::new_named("inner").into())).unwrap();
    let mut store = open(&url(&d)).unwrap();
    store.store_atom(&space, lambda).unwrap();
    store.store_atom(&space, x).unwrap();
    let err = store.barrier().unwrap_err().to_string();
    assert!(err.contains("AtomSpace held as a value"), "{err}");
    store.close().ok();
    let db = rocksdb::DB::open_default(d.path().join("db")).unwrap();
    let keys: Vec<String> = Writer::all(&db).into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["*-NextUnusedAID-*", "*-Version-*"]);
    drop(db);
    // A scope link on its own is stored (without upstream's hash) and found by its text.
    space.remove_value(x, key).unwrap();
    let mut store = open(&url(&d)).unwrap();
    store.store_atom(&space, lambda).unwrap();
    store.close().unwrap();
    let back = load_store(&url(&d));
    let (x2, cat2) = (back.get_node(VARIABLE_NODE, "$x").unwrap(), back.get_node(CONCEPT_NODE, "cat").unwrap());
    assert!(back.get_link(LAMBDA_LINK, &[x2, cat2]).is_some());
    let db = rocksdb::DB::open_default(d.path().join("db")).unwrap();
    let text = "(LambdaLink (VariableNode \"$x\")(ConceptNode \"cat\"))";
    let sid = String::from_utf8(db.get(format!("l@{text}")).unwrap().unwrap()).unwrap();
    assert_eq!(db.get(format!("a@{sid}:")).unwrap().unwrap(), text.as_bytes(), "no hash before it");
}
