//! The Redis Cluster store under faults, on real clusters of six
//! `redis-server` processes on loopback (three masters, three replicas,
//! a node timeout of 2 s): a master killed during a load that waits for
//! a replica, a replica stopped, a whole shard lost, a writer killed
//! mid-store. One cluster at a time (failover timing on two cores), each
//! stopped by pid when its test ends.

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use atomweave::types::*;
use atomweave::{AtomSpace, Handle};
use atomweave_store::redis::scratch::Scratch;
use atomweave_store::redis::RedisStore;
use atomweave_store::{open, StorageNode};
use common::child::ChildTest;

static ONE_CLUSTER_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_CLUSTER_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Adds chunk `c`: 50 words and 50 lists of two of them.
fn chunk(space: &AtomSpace, c: usize) -> Vec<Handle> {
    let words: Vec<Handle> = (0..50).map(|i| space.add_node(WORD_NODE, &format!("c{c}-w{i}")).unwrap()).collect();
    let mut atoms = words.clone();
    for i in 0..50 {
        atoms.push(space.add_link(LIST_LINK, &[words[i], words[(i * 7 + 1) % 50]]).unwrap());
    }
    atoms
}

/// Does the space loaded from `url` hold chunk `c` whole?
fn holds_chunk(space: &AtomSpace, c: usize) -> bool {
    (0..50).all(|i| {
        let w = space.get_node(WORD_NODE, &format!("c{c}-w{i}"));
        let v = space.get_node(WORD_NODE, &format!("c{c}-w{}", (i * 7 + 1) % 50));
        matches!((w, v), (Some(w), Some(v)) if space.get_link(LIST_LINK, &[w, v]).is_some())
    })
}

/// Barriers until one succeeds (within `bound`), calling `meanwhile`
/// after each failure with the time since the first.
fn barrier_until_ok(store: &mut dyn StorageNode, bound: Duration, mut meanwhile: impl FnMut(Duration)) {
    let start = Instant::now();
    loop {
        match store.barrier() {
            Ok(()) => return,
            Err(e) => {
                assert!(start.elapsed() < bound, "no barrier succeeded within {bound:?}: {e}");
                meanwhile(start.elapsed());
                std::thread::sleep(Duration::from_millis(250));
            }
        }
    }
}

#[test]
fn a_master_killed_during_a_wait_load_loses_no_confirmed_batch() {
    let _one = serial();
    let runs: usize = std::env::var("ATOMWEAVE_FAILOVER_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(2);
    for run in 0..runs {
        let mut cluster = Scratch::cluster(3, 1).unwrap();
        let url = cluster.url("wait=1&timeout=3");
        let mut store = open(&url).unwrap();
        let space = AtomSpace::new();
        let mut confirmed = Vec::new();
        let mut killed = None;
        for c in 0..30 {
            for h in chunk(&space, c) {
                store.store_atom(&space, h).unwrap();
            }
            if c == 8 {
                let m = cluster.masters()[run % 3];
                cluster.nodes[m].kill();
                killed = Some(m);
            }
            match store.barrier() {
                Ok(()) => confirmed.push(c),
                // Unconfirmed (the master gone, or no replica yet): the
                // batch stays queued; once the killed node is back as a
                // replica of the promoted one, a barrier confirms it.
                Err(_) => {
                    let mut restarted = false;
                    barrier_until_ok(&mut *store, Duration::from_secs(60), |waited| {
                        if !restarted && waited > Duration::from_secs(3) {
                            if let Some(m) = killed {
                                cluster.nodes[m].restart().unwrap();
                                restarted = true;
                            }
                        }
                    });
                    confirmed.push(c);
                }
            }
        }
        assert!(killed.is_some());
        cluster.await_ok(Duration::from_secs(30)).unwrap();
        let back = common::load_store(&cluster.url(""));
        let lost: Vec<usize> = confirmed.iter().copied().filter(|&c| !holds_chunk(&back, c)).collect();
        assert!(lost.is_empty(), "run {run}: confirmed chunks {lost:?} lost after the failover");
        let mut check = RedisStore::open(&cluster.url("")).unwrap();
        assert_eq!(check.check().unwrap() as usize, back.size());
    }
}

#[test]
fn a_stopped_replica_leaves_a_batch_reported_unreplicated() {
    let _one = serial();
    let cluster = Scratch::cluster(3, 1).unwrap();
    let url = cluster.url("wait=1&timeout=2");
    let mut store = open(&url).unwrap();
    let space = AtomSpace::new();
    for h in chunk(&space, 0) {
        store.store_atom(&space, h).unwrap();
    }
    store.barrier().unwrap();
    let m = cluster.masters()[0];
    let r = cluster.replica_of(m).expect("each master has a replica");
    cluster.nodes[r].pause();
    for h in chunk(&space, 1) {
        store.store_atom(&space, h).unwrap();
    }
    let err = store.barrier().expect_err("WAIT cannot reach the stopped replica").to_string();
    cluster.nodes[r].resume();
    assert!(err.contains("not replicated") && err.contains("reached 0 replica"), "{err}");
    // Queued still: a barrier confirms it once the replica has caught up.
    barrier_until_ok(&mut *store, Duration::from_secs(20), |_| {});
    let back = common::load_store(&cluster.url(""));
    assert!(holds_chunk(&back, 0) && holds_chunk(&back, 1));
}

#[test]
fn a_lost_shard_gives_errors_within_the_bound_and_recovers_from_its_files() {
    let _one = serial();
    let mut cluster = Scratch::cluster(3, 1).unwrap();
    let url = cluster.url("timeout=2");
    let mut store = open(&url).unwrap();
    let space = AtomSpace::new();
    for c in 0..5 {
        for h in chunk(&space, c) {
            store.store_atom(&space, h).unwrap();
        }
    }
    store.barrier().unwrap();
    // appendfsync everysec: what was written a second ago is on disk.
    std::thread::sleep(Duration::from_millis(1500));
    let m = cluster.masters()[0];
    let r = cluster.replica_of(m).unwrap();
    cluster.nodes[m].kill();
    cluster.nodes[r].kill();
    for h in chunk(&space, 5) {
        store.store_atom(&space, h).unwrap();
    }
    let start = Instant::now();
    let err = store.barrier().expect_err("a shard is gone").to_string();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(30), "the error came after {took:?}: {err}");
    cluster.nodes[m].restart().unwrap();
    cluster.nodes[r].restart().unwrap();
    cluster.await_ok(Duration::from_secs(60)).unwrap();
    barrier_until_ok(&mut *store, Duration::from_secs(60), |_| {});
    let back = common::load_store(&cluster.url(""));
    let missing: Vec<usize> = (0..6).filter(|&c| !holds_chunk(&back, c)).collect();
    assert!(missing.is_empty(), "chunks {missing:?} missing after the shard came back");
}

/// The child half of the next test: stores a big space into the store
/// at `ATOMWEAVE_REDIS_URL`, saying "storing" first.
#[test]
#[ignore]
fn redis_writer_child() {
    let Ok(url) = std::env::var("ATOMWEAVE_REDIS_URL") else { return };
    let space = common::random_space(150_000);
    let mut store = open(&url).unwrap();
    println!("storing");
    store.store_atomspace(&space, &mut |n| println!("stored {n}")).unwrap();
    store.close().unwrap();
    println!("done");
}

#[test]
fn a_writer_killed_mid_store_leaves_no_half_indexed_atom() {
    let _one = serial();
    let cluster = Scratch::cluster(3, 1).unwrap();
    let url = cluster.url("");
    let mut child = ChildTest::new("redis_writer_child").env("ATOMWEAVE_REDIS_URL", &url).spawn();
    child.wait_for("stored").expect("the child stores a first batch");
    std::thread::sleep(Duration::from_millis(150));
    let ended = child.kill();
    assert!(!ended.said("done"), "the writer was killed before it finished");
    let mut store = RedisStore::open(&url).unwrap();
    let atoms = store.check().unwrap();
    assert!(atoms > 0);
    let back = common::load_store(&url);
    assert_eq!(back.size() as u64, atoms, "every stored atom loads, whole");
}
