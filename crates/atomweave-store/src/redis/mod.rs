//! Redis and Redis Cluster stores: `redis://host:port` (one server) and
//! `redis+cluster://host:port[,host:port...]` (a cluster, by its seed
//! nodes), so that many processes on many hosts share one knowledge base
//! on a proven distributed engine.
//!
//! This module is the store's face: [`RedisStore`], its URL and options,
//! and the [`StorageNode`] calls, each handing the work to the files
//! below. It is not where keys and records are laid out (`layout.rs`),
//! how commands reach the nodes (`conn.rs`), where atoms are written
//! (`write.rs`), read (`read.rs`), loaded whole (`load_whole.rs`),
//! deleted (`delete.rs`) or checked (`check.rs`). A throwaway
//! cluster for tests and benchmarks is in `scratch` (the `scratch-server`
//! feature).
//!
//! Options (query parameters): `wait=N` (after each batch, Redis's `WAIT`
//! must confirm that N replicas of every master hold it, or the batch is
//! reported not replicated); `timeout=S` (seconds, default 10: the bound
//! on every call, connecting included); `buckets=N` (a power of two, for
//! a new store only: see `layout.rs`).
//!
//! What an acknowledged write means: with `wait=0`, the masters hold it
//! in memory, and on disk as their `appendfsync` says; replication is
//! asynchronous, so a master lost before its replica copied the batch
//! loses it. With `wait=N`, N replicas of every master hold it in memory
//! too. Not promised: transactions over many atoms, or a snapshot across
//! shards; each atom's record and values change at once.

use std::time::Duration;

use atomweave::{AtomSpace, Handle, Type, Value};

mod check;
mod conn;
mod delete;
mod layout;
mod load_whole;
mod read;
#[cfg(feature = "scratch-server")]
pub mod scratch;
mod write;

use crate::handle_map::SpaceIds;
use crate::{Batching, HashMap, Op, Result, StorageNode, StoreError};
use conn::{Call, Conn};
use layout::{Buckets, Id, LAYOUT, META_KEY};

/// Where a store URL points and how to use it.
#[derive(Debug, PartialEq)]
struct Target {
    /// The server, or the cluster's seed nodes, as `redis://host:port[/db]`.
    nodes: Vec<String>,
    cluster: bool,
    wait: u32,
    timeout: Duration,
    buckets: Option<Buckets>,
}

fn parse(url: &str) -> Result<Target> {
    let bad = |msg: String| StoreError::Open { url: url.to_string(), msg };
    let (cluster, rest) = match (url.strip_prefix("redis+cluster://"), url.strip_prefix("redis://")) {
        (Some(r), _) => (true, r),
        (None, Some(r)) => (false, r),
        _ => return Err(bad("not a redis:// or redis+cluster:// URL".into())),
    };
    let (hosts, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut t = Target { nodes: Vec::new(), cluster, wait: 0, timeout: Duration::from_secs(10), buckets: None };
    for (k, v) in query.split('&').filter(|p| !p.is_empty()).map(|p| p.split_once('=').unwrap_or((p, ""))) {
        let num = |what: &str| v.parse::<u64>().map_err(|_| bad(format!("{k}={v}: {what}")));
        match k {
            "wait" => t.wait = u32::try_from(num("a number of replicas")?).map_err(|_| bad(format!("wait={v}: too many replicas")))?,
            "timeout" => {
                let s = num("a whole number of seconds")?;
                if s == 0 {
                    return Err(bad("timeout=0: a call needs at least a second".into()));
                }
                t.timeout = Duration::from_secs(s);
            }
            "buckets" => {
                let n = num("a power of two")?;
                if !n.is_power_of_two() || !(16..=1 << 30).contains(&n) {
                    return Err(bad(format!("buckets={v}: a power of two from 16 to 2^30")));
                }
                t.buckets = Some(Buckets(n as u32));
            }
            _ => return Err(bad(format!("unknown option `{k}` (wait, timeout, buckets)"))),
        }
    }
    if hosts.is_empty() {
        return Err(bad("no host given: redis://host:port or redis+cluster://host:port,host:port".into()));
    }
    if cluster {
        t.nodes = hosts.split(',').map(|h| format!("redis://{h}")).collect();
    } else if hosts.contains(',') {
        return Err(bad("several hosts name a cluster: use redis+cluster://".into()));
    } else {
        t.nodes = vec![format!("redis://{hosts}")];
    }
    Ok(t)
}

pub struct RedisStore {
    url: String,
    conn: Conn,
    buckets: Buckets,
    /// Replicas `WAIT` must reach after each batch.
    wait: u32,
    timeout: Duration,
    scripts: write::Scripts,
    /// Content ids of one space's atoms.
    ids: SpaceIds<Id>,
    /// The store's type codes, both ways, as learnt.
    codes: HashMap<Type, u32>,
    types: HashMap<u32, Type>,
    pending: Vec<Op>,
    pending_space: Option<AtomSpace>,
}

impl RedisStore {
    /// Connects to the store at `url`, making it if the server or cluster
    /// holds none yet.
    pub fn open(url: &str) -> Result<RedisStore> {
        let target = parse(url)?;
        let conn = Conn::connect(url, &target.nodes, target.cluster, target.timeout)?;
        let buckets = Self::meta(&conn, url, target.buckets)?;
        Ok(RedisStore {
            url: url.to_string(),
            conn,
            buckets,
            wait: target.wait,
            timeout: target.timeout,
            scripts: write::Scripts::new(),
            ids: SpaceIds::new(Id(0)),
            codes: HashMap::default(),
            types: HashMap::default(),
            pending: Vec::new(),
            pending_space: None,
        })
    }

    /// The store's layout and bucket count, written first if there is no
    /// store yet (by whichever writer comes first).
    fn meta(conn: &Conn, url: &str, asked: Option<Buckets>) -> Result<Buckets> {
        let open_err = |msg: String| StoreError::Open { url: url.to_string(), msg };
        let mut init = redis::cmd("HSETNX");
        init.arg(META_KEY).arg("layout").arg(LAYOUT);
        let mut size = redis::cmd("HSETNX");
        size.arg(META_KEY).arg("buckets").arg(asked.unwrap_or(Buckets::DEFAULT).0);
        let mut read = redis::cmd("HMGET");
        read.arg(META_KEY).arg("layout").arg("buckets");
        let replies = conn.run(&[Call::Cmd(init), Call::Cmd(size), Call::Cmd(read)])?;
        let redis::Value::Array(fields) = &replies[2] else { return Err(open_err(format!("{META_KEY} read back as {:?}", replies[2]))) };
        let text = |v: &redis::Value| match v {
            redis::Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        };
        let (layout, buckets) = (text(&fields[0]), text(&fields[1]));
        if layout != LAYOUT {
            return Err(open_err(format!("the store has layout `{layout}`; this atomweave reads layout {LAYOUT}")));
        }
        let buckets =
            buckets.parse::<u32>().ok().filter(|n| n.is_power_of_two()).map(Buckets).ok_or_else(|| open_err(format!("a damaged bucket count `{buckets}`")))?;
        if asked.is_some_and(|a| a != buckets) {
            return Err(open_err(format!("the store was made with buckets={}; the count is fixed when a store is made", buckets.0)));
        }
        Ok(buckets)
    }

    /// Keys and memory of the masters: (keys, bytes used), summed.
    pub fn usage(&self) -> Result<(u64, u64)> {
        let keys: u64 = self.conn.on_masters(redis::cmd("DBSIZE"))?.iter().map(|v| if let redis::Value::Int(n) = v { *n as u64 } else { 0 }).sum();
        let mut info = redis::cmd("INFO");
        info.arg("memory");
        let mut used = 0;
        for v in self.conn.on_masters(info)? {
            let text = match v {
                redis::Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
                redis::Value::VerbatimString { text, .. } => text,
                _ => continue,
            };
            used += text.lines().find_map(|l| l.strip_prefix("used_memory:")).and_then(|n| n.trim().parse::<u64>().ok()).unwrap_or(0);
        }
        Ok((keys, used))
    }
}

impl StorageNode for RedisStore {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.queue_store(space, h, Op::Atom(h))
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.queue_store(space, h, Op::Value(h, key))
    }

    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> Result<Value> {
        self.queue_update(space, h, key, delta)
    }

    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<bool> {
        self.flush()?;
        self.fetch_one(space, h, None)
    }

    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        self.flush()?;
        self.fetch_one(space, h, Some(key))
    }

    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.fetch_incoming(space, h, None, recursive)
    }

    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: Type) -> Result<usize> {
        self.flush()?;
        self.fetch_incoming(space, h, Some(t), false)
    }

    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        self.flush()?;
        let Some(code) = self.stored_code(t)? else { return Ok(0) };
        Ok(self.load_type(space, code)? as usize)
    }

    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.load_whole(space, progress)
    }

    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.flush()?;
        self.store_whole(space, progress)
    }

    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<bool> {
        self.flush()?;
        crate::delete_in_both(space, h, recursive, || self.delete_from_store(space, h, recursive))
    }

    fn barrier(&mut self) -> Result<()> {
        self.flush()
    }

    fn reads_through(&self) -> bool {
        true
    }

    fn incoming_count(&mut self, space: &AtomSpace, h: Handle, limit: usize) -> Result<Option<usize>> {
        self.flush()?;
        Ok(Some(self.count_incoming(space, h)?.min(limit)))
    }

    fn fetch_node(&mut self, space: &AtomSpace, t: Type, name: &str) -> Result<Option<Handle>> {
        self.flush()?;
        self.fetch_content(space, t, Some(name), &[])
    }

    fn fetch_link(&mut self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> Result<Option<Handle>> {
        self.flush()?;
        self.fetch_content(space, t, None, outgoing)
    }

    fn monitor(&self) -> String {
        match self.usage() {
            Ok((keys, bytes)) => format!(
                "{}: {} buckets; masters hold {keys} keys in {:.1} MiB{}\n",
                self.url,
                self.buckets.0,
                bytes as f64 / 1048576.0,
                if self.wait > 0 { format!("; each batch waits for {} replica(s)", self.wait) } else { String::new() }
            ),
            Err(e) => format!("{}: {e}\n", self.url),
        }
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_servers_clusters_and_options() {
        let t = parse("redis://127.0.0.1:7000").unwrap();
        assert_eq!((t.nodes, t.cluster, t.wait), (vec!["redis://127.0.0.1:7000".to_string()], false, 0));
        let t = parse("redis+cluster://a:1,b:2?wait=1&timeout=3&buckets=1024").unwrap();
        assert_eq!(t.nodes, ["redis://a:1", "redis://b:2"]);
        assert_eq!((t.cluster, t.wait, t.timeout, t.buckets), (true, 1, Duration::from_secs(3), Some(Buckets(1024))));
        for bad in ["redis://", "redis://a:1,b:2", "redis://a:1?buckets=1000", "redis://a:1?timeout=0", "redis://a:1?colour=red", "lmdb:///x"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
