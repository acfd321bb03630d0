//! A throwaway Redis server or cluster on loopback, for tests and
//! `persist-bench`: `redis-server` processes (Debian's `redis-server`
//! package) in a temporary directory, append-only, with a short node
//! timeout, formed into a cluster by `redis-cli --cluster create`, and
//! every process stopped by its pid when the value is dropped, whatever
//! happened meanwhile. Not for a user's data.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Result, StoreError};

/// Milliseconds before a silent master is failed over.
const NODE_TIMEOUT_MS: u32 = 2000;

fn err(msg: String) -> StoreError {
    StoreError::Backend(format!("scratch redis: {msg}"))
}

/// One `redis-server` process.
pub struct Node {
    pub port: u16,
    dir: PathBuf,
    child: Option<Child>,
    cluster: bool,
}

impl Node {
    fn start(dir: &Path, port: u16, cluster: bool) -> Result<Node> {
        std::fs::create_dir_all(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
        let mut node = Node { port, dir: dir.to_path_buf(), child: None, cluster };
        node.spawn()?;
        Ok(node)
    }

    fn spawn(&mut self) -> Result<()> {
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--daemonize", "no", "--save", ""])
            .args(["--appendonly", "yes", "--appendfsync", "everysec"])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--logfile", "redis.log"])
            // Compact encodings for the store's buckets (docs/DISTRIBUTED.md).
            .args(["--hash-max-listpack-entries", "1024", "--hash-max-listpack-value", "128"])
            .args(["--zset-max-listpack-entries", "1024", "--zset-max-listpack-value", "128"])
            // A bulk load's append-only file is rewritten (compacted) once
            // it passes 1 GB, not every time it doubles from 64 MB, and
            // snapshots for replicas are not compressed: CPU for the load.
            .args(["--auto-aof-rewrite-min-size", "1gb", "--rdbcompression", "no"]);
        if self.cluster {
            cmd.args(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]).args(["--cluster-node-timeout", &NODE_TIMEOUT_MS.to_string()]);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| err(format!("cannot run redis-server ({e}): install Debian's redis-server package (scripts/install-deps.sh does)")))?;
        self.child = Some(child);
        self.await_ping()
    }

    fn await_ping(&mut self) -> Result<()> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default();
                    return Err(err(format!("redis-server on port {} exited ({status}): {}", self.port, log.lines().last().unwrap_or(""))));
                }
            }
            if cli(self.port, &["PING"]).is_ok_and(|r| r.contains("PONG")) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(err(format!("redis-server on port {} did not answer within 20 s", self.port)))
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn signal(&self, sig: i32) {
        if let Some(pid) = self.pid() {
            // SAFETY: kill(2) on a child of ours that has not been reaped.
            unsafe { libc::kill(pid as libc::pid_t, sig) };
        }
    }

    /// Kills it at once (SIGKILL), as a machine lost would be.
    pub fn kill(&mut self) {
        self.signal(libc::SIGKILL);
        if let Some(mut c) = self.child.take() {
            let _ = c.wait();
        }
    }

    /// Stops it answering (SIGSTOP) without closing its connections.
    pub fn pause(&self) {
        self.signal(libc::SIGSTOP);
    }

    /// Lets a paused node go on.
    pub fn resume(&self) {
        self.signal(libc::SIGCONT);
    }

    /// Starts it again on its port and directory (its append-only file
    /// and cluster state read back).
    pub fn restart(&mut self) -> Result<()> {
        self.kill();
        self.spawn()
    }

    fn stop(&mut self) {
        self.resume();
        self.signal(libc::SIGTERM);
        if let Some(mut c) = self.child.take() {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(5) {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs `redis-cli -p port args...`; its output.
pub fn cli(port: u16, args: &[&str]) -> Result<String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run redis-cli ({e}): install Debian's redis-tools package")))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A port free on loopback whose cluster bus port (+10000) is free too.
fn free_port() -> Result<u16> {
    for _ in 0..200 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| err(e.to_string()))?;
        let port = l.local_addr().map_err(|e| err(e.to_string()))?.port();
        if port < 55_000 && std::net::TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok() {
            return Ok(port);
        }
    }
    Err(err("no free pair of ports on loopback".into()))
}

/// A scratch server or cluster; its processes stop when it is dropped.
pub struct Scratch {
    pub nodes: Vec<Node>,
    cluster: bool,
    _dir: tempfile::TempDir,
}

impl Scratch {
    /// One server.
    pub fn single() -> Result<Scratch> {
        let dir = tempfile::Builder::new().prefix("atomweave-redis-").tempdir().map_err(|e| err(e.to_string()))?;
        let node = Node::start(&dir.path().join("0"), free_port()?, false)?;
        Ok(Scratch { nodes: vec![node], cluster: false, _dir: dir })
    }

    /// A cluster of `masters` masters with `replicas` replicas each,
    /// formed and every slot served before it returns.
    pub fn cluster(masters: usize, replicas: usize) -> Result<Scratch> {
        let dir = tempfile::Builder::new().prefix("atomweave-redis-cluster-").tempdir().map_err(|e| err(e.to_string()))?;
        let mut s = Scratch { nodes: Vec::new(), cluster: true, _dir: dir };
        for i in 0..masters * (1 + replicas) {
            let d = s._dir.path().join(i.to_string());
            s.nodes.push(Node::start(&d, free_port()?, true)?);
        }
        let addrs: Vec<String> = s.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        let out = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| err(format!("cannot run redis-cli ({e}): install Debian's redis-tools package")))?;
        if !out.status.success() {
            return Err(err(format!("redis-cli --cluster create failed: {}", String::from_utf8_lossy(&out.stdout))));
        }
        s.await_ok(Duration::from_secs(30))?;
        s.await_replicas(replicas, Duration::from_secs(30))?;
        Ok(s)
    }

    /// Waits until every master has `n` replicas online (synced).
    fn await_replicas(&self, n: usize, within: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            let online = |m: usize| cli(self.nodes[m].port, &["INFO", "replication"]).is_ok_and(|i| i.matches("state=online").count() >= n);
            if self.masters().into_iter().all(online) {
                return Ok(());
            }
            if start.elapsed() > within {
                return Err(err(format!("the replicas were not in sync within {} s", within.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until every running node says the cluster is ok and its
    /// replicas are in sync.
    pub fn await_ok(&self, within: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            let ok = self.nodes.iter().filter(|n| n.pid().is_some()).all(|n| cli(n.port, &["CLUSTER", "INFO"]).is_ok_and(|i| i.contains("cluster_state:ok")));
            if ok {
                return Ok(());
            }
            if start.elapsed() > within {
                return Err(err(format!("the cluster was not ok within {} s", within.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The store URL for it (`options` after a `?`, if any).
    pub fn url(&self, options: &str) -> String {
        let q = if options.is_empty() { String::new() } else { format!("?{options}") };
        if self.cluster {
            let seeds: Vec<String> = self.nodes.iter().take(3).map(|n| format!("127.0.0.1:{}", n.port)).collect();
            format!("redis+cluster://{}{q}", seeds.join(","))
        } else {
            format!("redis://127.0.0.1:{}{q}", self.nodes[0].port)
        }
    }

    /// The nodes that are masters now, by index.
    pub fn masters(&self) -> Vec<usize> {
        (0..self.nodes.len()).filter(|&i| self.nodes[i].pid().is_some() && cli(self.nodes[i].port, &["ROLE"]).is_ok_and(|r| r.starts_with("master"))).collect()
    }

    /// The index of the replica of master `m`.
    pub fn replica_of(&self, m: usize) -> Option<usize> {
        let port = self.nodes[m].port.to_string();
        (0..self.nodes.len()).find(|&i| {
            i != m
                && self.nodes[i].pid().is_some()
                && cli(self.nodes[i].port, &["ROLE"]).is_ok_and(|r| r.starts_with("slave") && r.lines().nth(2) == Some(port.as_str()))
        })
    }

    /// Process ids of the nodes running.
    pub fn pids(&self) -> Vec<u32> {
        self.nodes.iter().filter_map(Node::pid).collect()
    }
}
