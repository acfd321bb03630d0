//! atomweave-server: the CogServer-compatible network server.
//!
//! One [`AtomSpace`] shared by every client, on upstream's ports and
//! protocol: a line-oriented command shell on the telnet port (17001), with
//! the `sexpr` and `json` shells entered by name, and the same shells over
//! WebSocket on the web port (18080: `/json`, `/sexpr`). Each connection is
//! a task on a small tokio runtime, not a thread; replies to pipelined
//! commands go out in one write.
//!
//! This crate is the server and its shells. It is not the network client
//! (`cog://`, in `atomweave-store`) nor the Scheme or Python layers, whose
//! shells report "not available" until those are built in.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use atomweave::AtomSpace;
use tokio::net::TcpListener;
use tokio::sync::watch;

mod api;
mod http;
pub mod json_shell;
mod mcp;
mod metrics;
pub mod sexpr_shell;
mod state;
mod telnet;
#[cfg(feature = "tls")]
mod tls;

pub use state::{Durability, State};
#[cfg(feature = "tls")]
pub use tls::tls_config;

/// Upstream's telnet port.
pub const DEFAULT_PORT: u16 = 17001;
/// Upstream's HTTP and WebSocket port.
pub const DEFAULT_HTTP_PORT: u16 = 18080;
/// Longest accepted line, by default.
pub const DEFAULT_MAX_LINE: usize = 16 << 20;
/// Connections open at once, by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
/// Unfinished input held for all connections together, by default.
pub const DEFAULT_MAX_BUFFERED: usize = 256 << 20;
/// A connection silent this long is closed, by default.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(3600);
/// Time for a web request's head or a token line, by default.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest `scm` evaluation, by default.
pub const DEFAULT_SCM_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest query of the `sexpr` and `json` shells, by default.
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest reply to one command of the `sexpr` and `json` shells: a
/// longer one is an error (atoms sharing members print them at every
/// place, so a short command can ask for gigabytes).
pub const MAX_REPLY: usize = 256 << 20;
/// The Scheme heap's cap, by default.
pub const DEFAULT_SCM_MAX_HEAP: usize = 4 << 30;
/// A client that takes no reply bytes for this long is closed, by default.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// How to run a server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on; loopback by default.
    pub bind: IpAddr,
    /// Telnet port; 0 picks a free one.
    pub port: u16,
    /// HTTP and WebSocket port; `None` serves none, 0 picks a free one.
    pub http_port: Option<u16>,
    /// The tokens clients may present (the first line on the telnet port,
    /// `Authorization: Bearer` on the web port), each with its role. One
    /// at least is required to bind anywhere but loopback: the shells
    /// change the space (and upstream's run code). Without any, every
    /// client may write.
    pub tokens: Vec<Token>,
    /// Store URL: loaded at start, written through while serving, flushed
    /// and closed at shutdown.
    pub store: Option<String>,
    /// Longest line a client may send; longer ones are refused and the
    /// connection closed.
    pub max_line: usize,
    /// When an acknowledged write is durable in the store.
    pub sync: Durability,
    /// Connections open at once, telnet and web together; more are refused
    /// with a message.
    pub max_connections: usize,
    /// Bytes of unfinished input (partial lines and expressions) held for
    /// all connections together, beyond the first 64 KiB of each; a
    /// connection that would go over it is closed with a message.
    pub max_buffered: usize,
    /// A connection that sends nothing for this long is closed (`None`:
    /// never).
    pub idle_timeout: Option<Duration>,
    /// Time allowed for a web request's head, and for the token line of a
    /// server that wants one.
    pub handshake_timeout: Duration,
    /// Longest a `scm` command may evaluate before it is interrupted
    /// (`None`: no limit; shutdown interrupts it either way).
    pub scm_timeout: Option<Duration>,
    /// Longest a query (`cog-execute-cache!`, `AtomSpace.execute`) of the
    /// `sexpr` and `json` shells may run before it stops with an error
    /// (`None`: no limit).
    pub query_timeout: Option<Duration>,
    /// Web pages (`Origin` values, such as `https://app.example`) allowed to
    /// use the web port; any other page is refused.
    pub allow_origins: Vec<String>,
    /// A client that takes none of a reply's bytes for this long is closed:
    /// a reply waiting to be read holds its memory.
    pub write_timeout: Duration,
    /// TLS for both listeners ([`tls_config`]): the telnet port speaks TLS
    /// from the first byte, the web port serves `https` and `wss`. `None`:
    /// plain TCP.
    #[cfg(feature = "tls")]
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Most memory the `scm` shell's Scheme objects may take, for the whole
    /// process (`None`: no cap); past it an evaluation fails with Guile's
    /// out-of-memory error. Atoms are not counted: they live in the space.
    pub scm_max_heap: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: DEFAULT_PORT,
            http_port: Some(DEFAULT_HTTP_PORT),
            tokens: Vec::new(),
            store: None,
            max_line: DEFAULT_MAX_LINE,
            sync: Durability::Always,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_buffered: DEFAULT_MAX_BUFFERED,
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            scm_timeout: Some(DEFAULT_SCM_TIMEOUT),
            query_timeout: Some(DEFAULT_QUERY_TIMEOUT),
            allow_origins: Vec::new(),
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            scm_max_heap: Some(DEFAULT_SCM_MAX_HEAP),
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

/// What a client may do, by the token it presented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Query and fetch: no command that changes the space, no Scheme or
    /// Python shell (either could), no `shutdown`. Queries run in a frame
    /// of their own over the space, dropped after the reply: the atoms a
    /// query makes (its own, a GetLink's SetLink) stay out of the space.
    Read,
    /// Everything.
    Write,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Write => "write",
        }
    }
}

/// Why a read token's client may not use `what`.
pub(crate) fn read_only_refusal(what: &str) -> String {
    format!("{what} is refused: this connection's token may only read (query and fetch)")
}

/// A token a client may present, and what it lets that client do.
#[derive(Clone, Debug)]
pub struct Token {
    pub secret: String,
    pub role: Role,
}

impl Token {
    pub fn write(secret: impl Into<String>) -> Token {
        Token { secret: secret.into(), role: Role::Write }
    }

    pub fn read(secret: impl Into<String>) -> Token {
        Token { secret: secret.into(), role: Role::Read }
    }
}

/// The tokens of a token file: one token and its role (`read` or `write`)
/// a line, separated by white space; blank lines and lines starting with
/// `#` are skipped. Any other line is an error naming its number.
pub fn parse_token_file(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens: Vec<Token> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = i + 1;
        let mut words = line.split_whitespace();
        let (Some(secret), Some(role), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!("line {at}: expected a token and its role (read or write)"));
        };
        let Some(role) = [Role::Read, Role::Write].into_iter().find(|r| r.name() == role) else {
            return Err(format!("line {at}: the role is `read` or `write`, not `{role}`"));
        };
        if tokens.iter().any(|t| t.secret == secret) {
            return Err(format!("line {at}: this token is given twice"));
        }
        tokens.push(Token { secret: secret.to_string(), role });
    }
    if tokens.is_empty() {
        return Err("the file holds no token (one token and its role a line)".into());
    }
    Ok(tokens)
}

impl Config {
    /// Does this server want a token from each client?
    pub(crate) fn wants_token(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The role of a client that presented `given`; `None` if it is no
    /// token of this server's. Every token is compared, in time that
    /// depends on the length of `given` alone.
    pub(crate) fn role_of(&self, given: &[u8]) -> Option<Role> {
        self.tokens.iter().fold(None, |found, t| if same_secret(t.secret.as_bytes(), given) { Some(t.role) } else { found })
    }

    /// The role of a client on a server that wants no token.
    pub(crate) fn open_role(&self) -> Option<Role> {
        (!self.wants_token()).then_some(Role::Write)
    }
}

/// Why a server could not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("refusing to listen on {0} without --token: anyone who reaches the port could change the space; pass --token or bind to 127.0.0.1")]
    TokenRequired(IpAddr),
    #[error("refusing an empty --token: anyone could send it (was the variable holding it unset?)")]
    EmptyToken,
    #[error("a token is given twice (with --token and in --token-file?): it can have one role only")]
    TokenTwice,
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] atomweave_store::StoreError),
}

/// Counters for `stats`.
#[derive(Default)]
pub(crate) struct Stats {
    pub open: AtomicUsize,
    pub accepted: AtomicU64,
    pub commands: AtomicU64,
    /// Connections refused at the cap, closed idle, or closed over the input budget.
    pub refused: AtomicU64,
    pub timed_out: AtomicU64,
    pub over_budget: AtomicU64,
    /// Bytes of input held beyond each connection's free allowance.
    pub buffered: AtomicUsize,
}

/// What every connection shares.
pub(crate) struct Shared {
    pub state: State,
    pub config: Config,
    pub stats: Stats,
    pub started: Instant,
    /// Set to true once, to stop the server.
    pub stop: watch::Sender<bool>,
    /// The space's index in Scheme, once the scm shell has been used.
    #[cfg(feature = "scheme")]
    pub scheme_space: std::sync::OnceLock<u32>,
    /// What `GET /metrics` shows.
    pub metrics: metrics::Metrics,
    /// Set at shutdown: stops the queries of the sexpr and json shells.
    pub cancel: Arc<std::sync::atomic::AtomicBool>,
    /// This server's scm evaluations, stopped at its shutdown (and only
    /// its own: another server may run in the same process).
    #[cfg(feature = "scheme")]
    pub evals: atomweave_guile::EvalGroup,
}

impl Shared {
    /// The limits of a query run for a client of role `role`: the
    /// server's query timeout, stopped at shutdown, and no grounded
    /// procedure for a read token's client (its code could do anything).
    pub(crate) fn query_limits(&self, role: Role) -> atomweave::query::Limits {
        atomweave::query::Limits {
            deadline: self.config.query_timeout.map(|t| Instant::now() + t),
            cancel: Some(self.cancel.clone()),
            refuse_grounded: role == Role::Read,
            ..Default::default()
        }
    }
}

/// A bound server, ready to [`run`](Server::run).
pub struct Server {
    shared: Arc<Shared>,
    listener: TcpListener,
    web: Option<TcpListener>,
}

/// Stops a running server from elsewhere (tests, embedding programs).
#[derive(Clone)]
pub struct StopHandle(watch::Sender<bool>);

impl StopHandle {
    pub fn stop(&self) {
        self.0.send_replace(true);
    }
}

impl Server {
    /// Opens the store (loading it into a new space) and binds the port.
    /// Must be called inside a tokio runtime.
    pub async fn bind(config: Config) -> Result<Server, ServerError> {
        if config.tokens.iter().any(|t| t.secret.trim().is_empty()) {
            return Err(ServerError::EmptyToken);
        }
        if config.tokens.iter().enumerate().any(|(i, t)| config.tokens[..i].iter().any(|u| u.secret == t.secret)) {
            return Err(ServerError::TokenTwice);
        }
        if !config.bind.is_loopback() && !config.wants_token() {
            return Err(ServerError::TokenRequired(config.bind));
        }
        raise_fd_limit();
        let space = AtomSpace::new();
        // Off the runtime's threads: a store's own client (PostgreSQL's)
        // may run a runtime of its own, which cannot start inside this one.
        let store = match config.store.clone() {
            Some(url) => {
                // A file store's file may hold Scheme, as any data file.
                #[cfg(feature = "scheme")]
                atomweave_guile::install_file_loader();
                let space = space.clone();
                let opened = tokio::task::spawn_blocking(move || -> Result<_, ServerError> {
                    let mut st = atomweave_store::open(&url)?;
                    st.load_atomspace(&space, &mut |_| {})?;
                    Ok(st)
                });
                let joined = opened.await.map_err(|e| atomweave_store::StoreError::Backend(format!("opening the store stopped: {e}")))?;
                Some(joined?)
            }
            None => None,
        };
        let listen = |port: u16| async move {
            let addr = SocketAddr::new(config.bind, port);
            TcpListener::bind(addr).await.map_err(|source| ServerError::Bind { addr, source })
        };
        let listener = listen(config.port).await?;
        let web = match config.http_port {
            Some(port) => Some(listen(port).await?),
            None => None,
        };
        let (stop, _) = watch::channel(false);
        let shared = Arc::new(Shared {
            state: State::new(space, store, config.sync),
            config,
            stats: Stats::default(),
            started: Instant::now(),
            stop,
            #[cfg(feature = "scheme")]
            scheme_space: std::sync::OnceLock::new(),
            metrics: metrics::Metrics::new(),
            cancel: Arc::default(),
            #[cfg(feature = "scheme")]
            evals: atomweave_guile::EvalGroup::new(),
        });
        Ok(Server { shared, listener, web })
    }

    /// The telnet port's address (with the port picked, if 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// The web port's address, if it serves one.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.web.as_ref().map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// The space the server serves.
    pub fn space(&self) -> &AtomSpace {
        &self.shared.state.space
    }

    pub fn stop_handle(&self) -> StopHandle {
        StopHandle(self.shared.stop.clone())
    }

    /// Serves until `shutdown`, a [`StopHandle`], SIGTERM or SIGINT, then
    /// flushes and closes the store. Returns the served space.
    pub async fn run(self) -> Result<AtomSpace, ServerError> {
        let Server { shared, listener, web } = self;
        let mut stop = shared.stop.subscribe();
        let signals = tokio::spawn(stop_on_signals(shared.stop.clone()));
        let web = web.map(|l| tokio::spawn(accept_web(shared.clone(), l)));
        loop {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => break,
                accepted = listener.accept() => accepted_one(&shared, accepted, false).await,
            }
        }
        signals.abort();
        if let Some(w) = web {
            w.abort();
        }
        drop(listener);
        // Scheme that is still running is stopped, or the store could not
        // be closed (its evaluation may be writing) nor the process end.
        #[cfg(feature = "scheme")]
        if shared.scheme_space.get().is_some() {
            atomweave_guile::interrupt(&shared.evals, "the server is shutting down");
        }
        shared.cancel.store(true, Ordering::Relaxed);
        // Give in-flight commands a moment to finish, then close the store:
        // later writes (there should be none) would find no store.
        let deadline = Instant::now() + Duration::from_secs(2);
        while shared.stats.open.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let store = shared.state.take_store();
        if let Some(mut st) = store {
            tokio::task::block_in_place(|| -> Result<(), ServerError> {
                st.barrier()?;
                st.close()?;
                Ok(())
            })?;
            shared.state.closed_durably();
        }
        Ok(shared.state.space.clone())
    }
}

async fn accept_web(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        accepted_one(&shared, listener.accept().await, true).await;
    }
}

/// Serves an accepted connection on a task of its own, or refuses it at
/// the connection cap.
async fn accepted_one(shared: &Arc<Shared>, accepted: std::io::Result<(tokio::net::TcpStream, SocketAddr)>, web: bool) {
    let sock = match accepted {
        Ok((sock, _)) => sock,
        // Out of descriptors and the like: back off instead of spinning.
        Err(_) => return tokio::time::sleep(Duration::from_millis(20)).await,
    };
    let _ = sock.set_nodelay(true);
    let Some(open) = telnet::Open::take(shared) else {
        shared.stats.refused.fetch_add(1, Ordering::Relaxed);
        // A TLS client would take plain text for a broken handshake: it
        // gets a closed connection, as a handshake would cost what the
        // cap saves.
        #[cfg(feature = "tls")]
        if shared.config.tls.is_some() {
            return;
        }
        let msg = format!("error: this server has its most connections ({}) open; try again later\n", shared.config.max_connections);
        tokio::spawn(refuse(sock, msg, web));
        return;
    };
    shared.stats.accepted.fetch_add(1, Ordering::Relaxed);
    #[cfg(feature = "tls")]
    if let Some(tls) = shared.config.tls.clone() {
        tokio::spawn(accepted_tls(shared.clone(), tls, sock, open, web));
        return;
    }
    if web {
        tokio::spawn(http::serve(shared.clone(), sock, open));
    } else {
        tokio::spawn(telnet::serve(shared.clone(), sock, open));
    }
}

/// Serves a connection accepted on a TLS listener, once its handshake is done.
#[cfg(feature = "tls")]
async fn accepted_tls(shared: Arc<Shared>, tls: Arc<tokio_rustls::rustls::ServerConfig>, sock: tokio::net::TcpStream, open: telnet::Open, web: bool) {
    let Some(sock) = tls::accept(&shared, tls, sock).await else { return };
    if web {
        http::serve(shared, sock, open).await;
    } else {
        telnet::serve_tls(shared, sock, open).await;
    }
}

/// Says why, briefly (a client that does not read gets nothing), and closes.
async fn refuse(mut sock: tokio::net::TcpStream, msg: String, web: bool) {
    use tokio::io::AsyncWriteExt;
    let text = if web {
        format!("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{msg}", msg.len())
    } else {
        msg
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = sock.write_all(text.as_bytes()).await;
        let _ = sock.shutdown().await;
    })
    .await;
}

async fn stop_on_signals(stop: watch::Sender<bool>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    stop.send_replace(true);
}

/// Stack of each worker thread: atoms nest up to the reader's limit (4096
/// levels), and printing or looking one up recurses once per level.
/// Embedders running [`Server`] on their own runtime should give its
/// workers as much.
pub const WORKER_STACK: usize = 64 << 20;

/// Runs a server on a runtime of its own until it stops; for `atomweave serve`.
/// `ready` hears the bound address once clients can connect.
pub fn serve_blocking(config: Config, ready: impl FnOnce(SocketAddr, Option<SocketAddr>)) -> Result<AtomSpace, ServerError> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(WORKER_STACK).build().expect("a tokio runtime");
    let served = rt.block_on(async {
        let server = Server::bind(config).await?;
        ready(server.local_addr(), server.http_addr());
        server.run().await
    });
    // A command still running (one that ignores interrupts, in a store
    // call) does not keep the process from ending.
    rt.shutdown_timeout(Duration::from_secs(2));
    served
}

/// Is `given` the token `secret`? In time that depends on the length of
/// `given` alone: not on where the first wrong byte is, nor on the
/// secret's length (a client may not learn the lengths of the tokens).
pub(crate) fn same_secret(secret: &[u8], given: &[u8]) -> bool {
    if secret.is_empty() {
        return given.is_empty();
    }
    let differ = given.iter().enumerate().fold(0u8, |acc, (i, g)| acc | (g ^ secret[i % secret.len()]));
    differ == 0 && secret.len() == given.len()
}

/// Lifts the soft limit on open files to the hard one: every client is a
/// descriptor, and Debian's default soft limit (1024) would refuse the
/// thousand-and-first.
fn raise_fd_limit() {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit read and write the struct passed, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// Resident memory of this process, in bytes (Linux; 0 elsewhere).
pub(crate) fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()))
        // SAFETY: sysconf has no preconditions.
        .map_or(0, |pages| pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_token_matches_itself_only() {
        let same = super::same_secret;
        assert!(same(b"s3cret", b"s3cret"));
        for other in [&b"s3cre"[..], b"s3cret!", b"s3crets3cret", b"S3cret", b""] {
            assert!(!same(b"s3cret", other), "{:?}", String::from_utf8_lossy(other));
        }
    }
}
