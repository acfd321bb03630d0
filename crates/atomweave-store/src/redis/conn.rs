//! The connection to one Redis server or a Redis Cluster, and the ways
//! this store talks over it: many commands in flight at once (each routed
//! by its key to the node holding that key's slot), Lua scripts by their
//! SHA with the text sent once a node lacks them, and `WAIT` on every
//! master. Redirects (`MOVED`, `ASK`) and topology changes after a
//! failover are the `redis` crate's; every call here has a time bound, so
//! a node that cannot be reached is an error, never a hang.

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use redis::aio::MultiplexedConnection;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, ResponsePolicy, RoutingInfo};
use redis::{Cmd, Value};

use crate::{Result, StoreError};

/// Commands in flight at once: enough to keep every node busy, few enough
/// that a batch's replies stay small.
const IN_FLIGHT: usize = 256;

/// A Lua script the store runs, with its SHA1 (computed once).
pub(crate) struct Script {
    src: &'static str,
    pub(crate) sha: String,
}

impl Script {
    pub(crate) fn new(src: &'static str) -> Script {
        Script { src, sha: redis::Script::new(src).get_hash().to_string() }
    }
}

/// One command to send: a plain one, or a script run on its keys (which
/// share one slot).
pub(crate) enum Call<'s> {
    Cmd(Cmd),
    Script { script: &'s Script, keys: Vec<Vec<u8>>, args: Vec<Vec<u8>> },
}

impl Call<'_> {
    /// The command to send (a script by its SHA, or with `by_sha` off, by
    /// its text).
    fn command(&self, by_sha: bool) -> std::borrow::Cow<'_, Cmd> {
        match self {
            Call::Cmd(c) => std::borrow::Cow::Borrowed(c),
            Call::Script { script, keys, args } => {
                let mut c = if by_sha { redis::cmd("EVALSHA") } else { redis::cmd("EVAL") };
                c.arg(if by_sha { script.sha.as_str() } else { script.src }).arg(keys.len()).arg(keys).arg(args);
                std::borrow::Cow::Owned(c)
            }
        }
    }
}

#[derive(Clone)]
enum Link {
    One(MultiplexedConnection),
    Cluster(ClusterConnection),
}

pub(crate) struct Conn {
    rt: tokio::runtime::Runtime,
    /// The connection; `None` after a call failed, so that the next call
    /// connects afresh and learns the cluster's topology anew (the
    /// `redis` crate keeps reconnecting to a master that died, and learns
    /// of its replica's promotion only from a redirect, which a dead node
    /// never sends).
    link: std::cell::RefCell<Option<Link>>,
    nodes: Vec<String>,
    cluster: bool,
    /// The bound on each call.
    timeout: Duration,
    /// What the store was opened with, for errors.
    url: String,
}

fn redis_err(url: &str, timeout: Duration, e: redis::RedisError) -> StoreError {
    if e.is_timeout() {
        return StoreError::Backend(format!("{url}: no answer within {} s (a node down, paused or unreachable): {e}", timeout.as_secs_f64()));
    }
    StoreError::Backend(format!("{url}: redis: {e}"))
}

impl Conn {
    /// Connects to `nodes` (one server, or a cluster's seed nodes), within
    /// `timeout` (the `redis` crate's own set-up can hang where a node
    /// accepts connections but does not answer).
    pub(crate) fn connect(url: &str, nodes: &[String], cluster: bool, timeout: Duration) -> Result<Conn> {
        // One worker: a batch sent in the background goes on while the
        // caller plans the next (`send_waves`).
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("atomweave-redis")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Open { url: url.to_string(), msg: format!("cannot start the I/O runtime: {e}") })?;
        let conn = Conn { rt, link: std::cell::RefCell::new(None), nodes: nodes.to_vec(), cluster, timeout, url: url.to_string() };
        conn.connected().map_err(|msg| StoreError::Open { url: url.to_string(), msg })?;
        Ok(conn)
    }

    /// The connection, made now if there is none.
    fn link(&self) -> Result<Link> {
        self.connected().map_err(|msg| StoreError::Backend(format!("{}: {msg}", self.url)))
    }

    /// The connection, made now if there is none; or why not.
    fn connected(&self) -> std::result::Result<Link, String> {
        if let Some(l) = self.link.borrow().as_ref() {
            return Ok(l.clone());
        }
        let (nodes, timeout) = (&self.nodes, self.timeout);
        let connecting = async {
            if self.cluster {
                let client = redis::cluster::ClusterClientBuilder::new(nodes.to_vec())
                    .connection_timeout(timeout)
                    .response_timeout(timeout)
                    .build()
                    .map_err(|e| e.to_string())?;
                client.get_async_connection().await.map(Link::Cluster).map_err(|e| e.to_string())
            } else {
                let client = redis::Client::open(nodes[0].as_str()).map_err(|e| e.to_string())?;
                let config = redis::AsyncConnectionConfig::new().set_connection_timeout(Some(timeout)).set_response_timeout(Some(timeout));
                client.get_multiplexed_async_connection_with_config(&config).await.map(Link::One).map_err(|e| e.to_string())
            }
        };
        let link = self
            .rt
            .block_on(async { tokio::time::timeout(timeout, connecting).await })
            .map_err(|_| format!("no answer within {} s while connecting (is every node up?)", timeout.as_secs_f64()))??;
        *self.link.borrow_mut() = Some(link.clone());
        Ok(link)
    }

    /// `r`, and after a failure, the connection dropped (see `link`).
    fn checked<T>(&self, r: Result<T>) -> Result<T> {
        if r.is_err() {
            *self.link.borrow_mut() = None;
        }
        r
    }

    /// Sends every call, many in flight, and returns their replies in
    /// order; the first error (after the crate's retries) stops the lot.
    pub(crate) fn run(&self, calls: &[Call<'_>]) -> Result<Vec<Value>> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let link = &self.link()?;
        let (timeout, url) = (self.timeout, self.url.as_str());
        let sends = calls.iter().map(|call| {
            let mut link = link.clone();
            async move {
                let reply = send(&mut link, &call.command(true), timeout).await;
                match reply {
                    Err(e) if e.code() == Some("NOSCRIPT") => send(&mut link, &call.command(false), timeout).await,
                    r => r,
                }
            }
        });
        let replies = self.rt.block_on(async {
            let replies: Vec<redis::RedisResult<Value>> = stream::iter(sends).buffered(IN_FLIGHT).collect().await;
            replies.into_iter().map(|r| r.map_err(|e| redis_err(url, timeout, e))).collect()
        });
        self.checked(replies)
    }

    /// Sends each group's commands as one pipeline to the master of the
    /// group's slot (every command's keys must be in that slot), many
    /// groups in flight, and returns each group's
    /// replies. A script a node lacks (a new master after a failover) is
    /// loaded on every master and the group sent again.
    pub(crate) fn run_groups(&self, groups: Vec<Group>, scripts: &[&Script]) -> Result<Vec<Vec<Value>>> {
        let link = &self.link()?;
        let (timeout, url) = (self.timeout, self.url.as_str());
        let mut replies = self.rt.block_on(async {
            let sends = groups.iter().map(|g| {
                let mut link = link.clone();
                async move { send_group(&mut link, g, timeout).await }
            });
            stream::iter(sends).buffered(IN_FLIGHT).collect::<Vec<_>>().await
        });
        if replies.iter().any(|r| matches!(r, Err(e) if e.code() == Some("NOSCRIPT"))) {
            self.load_scripts(scripts)?;
            for (r, g) in replies.iter_mut().zip(&groups) {
                if matches!(r, Err(e) if e.code() == Some("NOSCRIPT")) {
                    let mut link = link.clone();
                    *r = self.rt.block_on(send_group(&mut link, g, timeout));
                }
            }
        }
        self.checked(replies.into_iter().map(|r| r.map_err(|e| redis_err(url, timeout, e))).collect())
    }

    /// Loads `scripts` on every master, so that pipelines sent in the
    /// background (which cannot load them midway) find them.
    pub(crate) fn load_scripts(&self, scripts: &[&Script]) -> Result<()> {
        for s in scripts {
            let mut load = redis::cmd("SCRIPT");
            load.arg("LOAD").arg(s.src);
            self.on_masters(load)?;
        }
        Ok(())
    }

    /// Starts sending `waves` (each wave's groups many in flight, a wave
    /// once the one before is answered) on the runtime's worker, while the
    /// caller goes on; [`finish`](Self::finish) waits for it.
    pub(crate) fn send_waves(&self, waves: Vec<Vec<Group>>) -> Result<Sending<()>> {
        let link = self.link()?;
        let (timeout, url) = (self.timeout, self.url.clone());
        Ok(Sending(self.rt.spawn(async move {
            for wave in waves {
                let sends: Vec<_> = wave.into_iter().map(|g| send_owned(link.clone(), g, timeout)).collect();
                let replies: Vec<redis::RedisResult<Vec<Value>>> = stream::iter(sends).buffered(IN_FLIGHT).collect().await;
                for r in replies {
                    r.map_err(|e| redis_err(&url, timeout, e))?;
                }
            }
            Ok(())
        })))
    }

    /// Starts sending `groups` as [`run_groups`](Self::run_groups) does
    /// (without scripts) on the runtime's worker, which takes their
    /// replies apart while the caller goes on; [`finish`](Self::finish)
    /// gives them.
    pub(crate) fn start_groups(&self, groups: Vec<Group>) -> Result<Sending<Vec<Vec<Value>>>> {
        let link = self.link()?;
        let (timeout, url) = (self.timeout, self.url.clone());
        Ok(Sending(self.rt.spawn(async move {
            let sends: Vec<_> = groups.into_iter().map(|g| send_owned(link.clone(), g, timeout)).collect();
            let replies: Vec<redis::RedisResult<Vec<Value>>> = stream::iter(sends).buffered(IN_FLIGHT).collect().await;
            replies.into_iter().map(|r| r.map_err(|e| redis_err(&url, timeout, e))).collect()
        })))
    }

    /// Waits for what [`send_waves`](Self::send_waves) or
    /// [`start_groups`](Self::start_groups) started.
    pub(crate) fn finish<T>(&self, s: Sending<T>) -> Result<T> {
        let done = self.rt.block_on(s.0).unwrap_or_else(|e| Err(StoreError::Backend(format!("{}: the sending task failed: {e}", self.url))));
        self.checked(done)
    }

    /// One call's reply.
    pub(crate) fn one(&self, call: Call<'_>) -> Result<Value> {
        Ok(self.run(std::slice::from_ref(&call))?.pop().expect("one reply"))
    }

    /// Waits until `replicas` replicas of every master hold what was
    /// written before (Redis's `WAIT`, at most `timeout`); how many the
    /// least-replicated master reached.
    pub(crate) fn wait(&self, replicas: u32) -> Result<u32> {
        let mut cmd = redis::cmd("WAIT");
        // Half the bound on the server, so that its answer comes within it.
        cmd.arg(replicas).arg((self.timeout.as_millis() / 2) as u64);
        let timeout = self.timeout;
        let link = self.link()?;
        let reply = self.rt.block_on(async {
            match link {
                Link::One(mut c) => with_timeout(cmd.query_async::<Value>(&mut c), timeout).await,
                Link::Cluster(mut c) => {
                    let all = RoutingInfo::MultiNode((
                        MultipleNodeRoutingInfo::AllMasters,
                        Some(ResponsePolicy::Aggregate(redis::cluster_routing::AggregateOp::Min)),
                    ));
                    with_timeout(c.route_command(cmd, all), timeout).await
                }
            }
        });
        let reached = match reply.map_err(|e| redis_err(&self.url, self.timeout, e)) {
            Ok(Value::Int(n)) => Ok(u32::try_from(n).unwrap_or(0)),
            Ok(v) => Err(StoreError::Backend(format!("{}: WAIT answered {v:?}", self.url))),
            Err(e) => Err(e),
        };
        self.checked(reached)
    }

    /// Runs `cmd` on every master; their replies.
    pub(crate) fn on_masters(&self, cmd: Cmd) -> Result<Vec<Value>> {
        let timeout = self.timeout;
        let link = self.link()?;
        let reply = self.rt.block_on(async {
            match link {
                Link::One(mut c) => with_timeout(cmd.query_async::<Value>(&mut c), timeout).await.map(|v| vec![v]),
                Link::Cluster(mut c) => {
                    let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                    match with_timeout(c.route_command(cmd, all), timeout).await? {
                        // One reply per node, by address.
                        Value::Map(m) => Ok(m.into_iter().map(|(_, v)| v).collect()),
                        Value::Array(vs) => Ok(vs),
                        v => Ok(vec![v]),
                    }
                }
            }
        });
        self.checked(reply.map_err(|e| redis_err(&self.url, self.timeout, e)))
    }
}

/// Work sent in the background ([`Conn::send_waves`],
/// [`Conn::start_groups`]), its result awaited by [`Conn::finish`].
pub(crate) struct Sending<T>(tokio::task::JoinHandle<Result<T>>);

/// Commands whose keys share one slot, sent as one pipeline to the master
/// serving it (found by its first key).
pub(crate) struct Group {
    pub(crate) pipe: redis::Pipeline,
}

/// [`send_group`] owning its group and link, for a task of its own.
async fn send_owned(mut link: Link, g: Group, timeout: Duration) -> redis::RedisResult<Vec<Value>> {
    send_group(&mut link, &g, timeout).await
}

async fn send_group(link: &mut Link, g: &Group, timeout: Duration) -> redis::RedisResult<Vec<Value>> {
    match link {
        Link::One(c) => with_timeout(g.pipe.query_async::<Vec<Value>>(c), timeout).await,
        Link::Cluster(c) => with_timeout(g.pipe.query_async::<Vec<Value>>(c), timeout).await,
    }
}

async fn send(link: &mut Link, cmd: &Cmd, timeout: Duration) -> redis::RedisResult<Value> {
    match link {
        Link::One(c) => with_timeout(cmd.query_async::<Value>(c), timeout).await,
        Link::Cluster(c) => with_timeout(cmd.query_async::<Value>(c), timeout).await,
    }
}

async fn with_timeout<T>(f: impl std::future::Future<Output = redis::RedisResult<T>>, timeout: Duration) -> redis::RedisResult<T> {
    match tokio::time::timeout(timeout, f).await {
        Ok(r) => r,
        Err(_) => Err(redis::RedisError::from(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("no answer within {} s (a node down or unreachable)", timeout.as_secs_f64()),
        ))),
    }
}
