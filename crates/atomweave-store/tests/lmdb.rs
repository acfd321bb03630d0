//! The LMDB and file stores against real files: round trips, every
//! StorageNode call, bad paths and versions, and a SIGKILL in mid-store.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use atomweave::sexpr::{self, Form};
use atomweave::types::*;
use atomweave::{AtomSpace, TruthValue, Value};
use atomweave_store::lmdb::LmdbStore;
use atomweave_store::{open, StorageNode};

mod common;
use common::{canon_set, random_space};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_random_space_survives_store_close_open_load() {
    let space = random_space(20_000);
    let want = canon_set(&space);
    let d = dir();
    let url = format!("lmdb://{}", d.path().join("db").display());
    let mut store = open(&url).unwrap();
    let stored = store.store_atomspace(&space, &mut |_| {}).unwrap();
    assert_eq!(stored as usize, space.size());
    store.close().unwrap();

    let mut store = LmdbStore::open(&url, d.path().join("db").to_str().unwrap()).unwrap();
    assert_eq!(store.check().unwrap() as usize, space.size());
    let back = AtomSpace::new();
    let loaded = store.load_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(loaded as usize, space.size());
    assert_eq!(canon_set(&back), want);

    // Storing again adds nothing: atoms are found by content.
    store.store_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(store.check().unwrap() as usize, space.size());
}

#[test]
fn a_file_store_round_trips_too() {
    let space = random_space(5_000);
    let d = dir();
    let url = format!("file://{}", d.path().join("s.scm").display());
    let mut store = open(&url).unwrap();
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    let back = AtomSpace::new();
    open(&url).unwrap().load_atomspace(&back, &mut |_| {}).unwrap();
    assert_eq!(canon_set(&back), canon_set(&space));
    let err = open(&url).unwrap().fetch_atom(&back, back.handles_by_type(ATOM, true).next().unwrap()).unwrap_err();
    assert!(err.to_string().contains("file store cannot fetch"), "{err}");
}

#[test]
fn single_atom_calls() {
    let d = dir();
    let url = format!("lmdb://{}", d.path().display());
    let space = AtomSpace::new();
    let [cat, animal, dog, key] = ["cat", "animal", "dog", "key"].map(|n| space.add_node(CONCEPT_NODE, n).unwrap());
    let cat_animal = space.add_link(INHERITANCE_LINK, &[cat, animal]).unwrap();
    let dog_animal = space.add_link(INHERITANCE_LINK, &[dog, animal]).unwrap();
    let pair = space.add_link(LIST_LINK, &[cat, dog]).unwrap();
    let eval = space.add_link(EVALUATION_LINK, &[key, pair]).unwrap();
    space.set_tv(cat_animal, TruthValue::simple(0.9, 0.8)).unwrap();
    space.set_value(cat, key, Value::float(vec![1.0, 2.0])).unwrap();
    let mut store = open(&url).unwrap();
    for h in [cat_animal, dog_animal, eval] {
        store.store_atom(&space, h).unwrap();
    }
    store.store_atom(&space, cat).unwrap();
    store.barrier().unwrap();

    // Into a fresh space, piece by piece.
    let s2 = AtomSpace::new();
    let animal2 = s2.add_node(CONCEPT_NODE, "animal").unwrap();
    assert_eq!(store.fetch_incoming_by_type(&s2, animal2, LIST_LINK).unwrap(), 0);
    assert_eq!(store.fetch_incoming_set(&s2, animal2, false).unwrap(), 2);
    let cat2 = s2.get_node(CONCEPT_NODE, "cat").unwrap();
    let ca2 = s2.get_link(INHERITANCE_LINK, &[cat2, animal2]).unwrap();
    assert_eq!(s2.get_tv(ca2), Some(TruthValue::simple(0.9, 0.8)));
    assert_eq!(s2.get_value(cat2, s2.get_node(CONCEPT_NODE, "key").unwrap_or(cat2)), None, "fetching links loads their values, not their members'");
    assert!(store.fetch_atom(&s2, cat2).unwrap());
    let key2 = s2.get_node(CONCEPT_NODE, "key").unwrap();
    assert_eq!(s2.get_value(cat2, key2), Some(Value::float(vec![1.0, 2.0])));
    assert_eq!(store.fetch_incoming_set(&s2, cat2, true).unwrap(), 3, "(cat -> animal), the ListLink, then the EvaluationLink above it");
    let unknown = s2.add_node(CONCEPT_NODE, "never stored").unwrap();
    assert!(!store.fetch_atom(&s2, unknown).unwrap());

    let s3 = AtomSpace::new();
    assert_eq!(store.load_atoms_of_type(&s3, INHERITANCE_LINK).unwrap(), 2);
    assert_eq!(s3.count_of_type(INHERITANCE_LINK, false), 2);

    // update_value adds, in the space now and in the store at the barrier.
    let tv_key = space.add_node(PREDICATE_NODE, sexpr::TV_KEY).unwrap();
    assert_eq!(store.update_value(&space, dog, tv_key, &[3.0]).unwrap(), Value::Truth(TruthValue::count(1.0, 0.0, 3.0)));
    assert_eq!(store.update_value(&space, dog, tv_key, &[2.0]).unwrap(), Value::Truth(TruthValue::count(1.0, 0.0, 5.0)));
    assert_eq!(store.update_value(&space, cat, key, &[1.0, 1.0, 1.0]).unwrap(), Value::float(vec![2.0, 3.0, 1.0]));
    store.barrier().unwrap();
    let s4 = AtomSpace::new();
    let dog4 = s4.add_node(CONCEPT_NODE, "dog").unwrap();
    assert!(store.fetch_atom(&s4, dog4).unwrap());
    assert_eq!(s4.get_tv(dog4), Some(TruthValue::count(1.0, 0.0, 5.0)));

    // delete: refused while links hold the atom, recursive takes them too.
    assert!(!store.delete(&space, animal, false).unwrap());
    assert!(store.delete(&space, animal, true).unwrap());
    assert!(!space.contains(cat_animal) && !space.contains(animal));
    let s5 = AtomSpace::new();
    store.load_atomspace(&s5, &mut |_| {}).unwrap();
    assert_eq!(s5.count_of_type(INHERITANCE_LINK, false), 0);
    assert!(s5.get_node(CONCEPT_NODE, "animal").is_none());
    assert!(s5.get_node(CONCEPT_NODE, "cat").is_some());
    store.close().unwrap();
    let mut check = LmdbStore::open(&url, d.path().to_str().unwrap()).unwrap();
    check.check().unwrap();
}

#[test]
fn bad_paths_urls_and_versions_are_clear_errors() {
    let err = open("lmdb:///proc/no/such/place").err().unwrap().to_string();
    assert!(err.contains("/proc/no/such/place") && err.contains("cannot"), "{err}");
    let f = tempfile::NamedTempFile::new().unwrap();
    let err = open(&format!("lmdb://{}/db", f.path().display())).err().unwrap().to_string();
    assert!(err.contains("cannot create the directory"), "{err}");
    let err = open("bogus://x").err().unwrap().to_string();
    assert!(err.contains("unknown kind of store"), "{err}");
    let err = open("cog://localhost:17001").err().unwrap().to_string();
    assert!(err.contains("not built yet"), "{err}");

    // A store written by another schema version is refused, not misread.
    let d = dir();
    let path = d.path().to_str().unwrap().to_string();
    open(&path).unwrap().close().unwrap();
    {
        // SAFETY: the store above is closed; nothing else has this environment open.
        let env = unsafe { heed::EnvOpenOptions::new().max_dbs(8).open(&path) }.unwrap();
        let mut w = env.write_txn().unwrap();
        let meta = env.open_database::<heed::types::Bytes, heed::types::Bytes>(&w, Some("meta")).unwrap().unwrap();
        meta.put(&mut w, b"schema", &99u32.to_le_bytes()).unwrap();
        w.commit().unwrap();
    }
    let err = open(&path).err().unwrap().to_string();
    let reads = format!("reads version {}", atomweave_store::lmdb::SCHEMA);
    assert!(err.contains("schema version 99") && err.contains(&reads), "{err}");
}

/// The child half of the crash test: stores batches of atoms, printing the
/// number of atoms after each barrier, until it is killed.
#[test]
fn crash_child() {
    let Ok(path) = std::env::var("ATOMWEAVE_CRASH_DIR") else { return };
    let space = AtomSpace::new();
    let mut store = open(&path).unwrap();
    let p = space.add_node(PREDICATE_NODE, "P").unwrap();
    for round in 0u64.. {
        for i in 0..20_000 {
            let n = round * 20_000 + i;
            let a = space.add_node(CONCEPT_NODE, &format!("a{n}")).unwrap();
            let b = space.add_node(CONCEPT_NODE, &format!("b{n}")).unwrap();
            let l = space.add_link(LIST_LINK, &[a, b]).unwrap();
            let e = space.add_link(EVALUATION_LINK, &[p, l]).unwrap();
            space.set_tv(e, TruthValue::simple(0.5, 0.5)).unwrap();
            store.store_atom(&space, e).unwrap();
        }
        store.barrier().unwrap();
        println!("stored {}", (round + 1) * 20_000);
    }
}

#[test]
fn a_killed_writer_loses_nothing_before_its_last_barrier() {
    let d = dir();
    let path = d.path().join("db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads", "1"])
        .env("ATOMWEAVE_CRASH_DIR", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut last = 0u64;
    while let Some(Ok(line)) = lines.next() {
        if let Some(n) = line.split("stored ").nth(1) {
            last = n.trim().parse().unwrap();
            if last >= 60_000 {
                break;
            }
        }
    }
    // Killed mid-batch: the next batch is being written.
    std::thread::sleep(std::time::Duration::from_millis(30));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(last >= 60_000, "the child stopped early");

    let mut store = LmdbStore::open("crash", path.to_str().unwrap()).unwrap();
    let atoms = store.check().unwrap();
    let space = AtomSpace::new();
    store.load_atomspace(&space, &mut |_| {}).unwrap();
    assert_eq!(space.size() as u64, atoms);
    let p = space.get_node(PREDICATE_NODE, "P").unwrap();
    for n in [0, last / 2, last - 1] {
        let a = space.get_node(CONCEPT_NODE, &format!("a{n}")).expect("stored before the barrier");
        let b = space.get_node(CONCEPT_NODE, &format!("b{n}")).unwrap();
        let l = space.get_link(LIST_LINK, &[a, b]).unwrap();
        let e = space.get_link(EVALUATION_LINK, &[p, l]).unwrap();
        assert_eq!(space.get_tv(e), Some(TruthValue::simple(0.5, 0.5)));
    }
    // Whole structures only: four atoms each, plus P.
    assert_eq!((space.size() - 1) % 4, 0, "a partial structure survived");
    let text = sexpr::atom_to_string(&space, p, Form::Wire);
    assert!(text.contains("\"P\""));
}

/// The child half of the bulk crash test: one whole-space store into an
/// empty store, announced before it starts.
#[test]
fn bulk_crash_child() {
    let Ok(path) = std::env::var("ATOMWEAVE_BULK_CRASH_DIR") else { return };
    let space = random_space(300_000);
    let mut store = open(&path).unwrap();
    println!("storing {}", space.size());
    store.store_atomspace(&space, &mut |_| {}).unwrap();
    store.close().unwrap();
    println!("stored");
}

#[test]
fn a_killed_whole_space_store_leaves_all_or_nothing() {
    let want = random_space(300_000).size() as u64;
    for delay_ms in [50, 400] {
        let d = dir();
        let path = d.path().join("db");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "bulk_crash_child", "--nocapture", "--test-threads", "1"])
            .env("ATOMWEAVE_BULK_CRASH_DIR", &path)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        while let Some(Ok(line)) = lines.next() {
            // libtest prints the first line after "test bulk_crash_child ... ".
            if line.contains("storing") {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let mut store = LmdbStore::open("crash", path.to_str().unwrap()).unwrap();
        let atoms = store.check().unwrap();
        assert!(atoms == 0 || atoms == want, "{atoms} of {want} atoms after a kill at {delay_ms} ms");
        let space = AtomSpace::new();
        assert_eq!(store.load_atomspace(&space, &mut |_| {}).unwrap(), atoms);
    }
}
