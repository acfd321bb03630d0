//! The telnet port: upstream's line protocol, one task per connection.
//!
//! Lines end in `\n` (a `\r` before it is dropped). The command shell
//! answers `help`, `list`, `stats`, `quit`, `shutdown` and enters the
//! `sexpr` and `json` shells, which are left by a line holding only `.` or
//! Ctrl-D. Commands read from one network read are all answered before the
//! replies are flushed, so a pipelining client gets them in few writes.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::TcpStream;

use crate::{json_shell, metrics, sexpr_shell, Role, Shared};

/// The command shell's prompt, as upstream prints it without colour.
pub(crate) const PROMPT: &str = "opencog> ";
const CTRL_D: u8 = 0x04;
/// Longest line accepted before a client has sent its token.
const PRE_AUTH_LINE: usize = 4096;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Shell {
    Command,
    Sexpr,
    Json,
    Scm,
}

/// A connection's place in the count of open ones: taken where it is
/// accepted, before its task starts (so that a burst of connections cannot
/// pass the cap while their tasks are yet to run), and given back however
/// the task ends.
pub(crate) struct Open(Arc<Shared>);

impl Open {
    /// A place, or `None` when [`crate::Config::max_connections`] are open.
    pub(crate) fn take(shared: &Arc<Shared>) -> Option<Open> {
        let before = shared.stats.open.fetch_add(1, Ordering::AcqRel);
        if before >= shared.config.max_connections {
            shared.stats.open.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Open(shared.clone()))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.stats.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A plain connection.
pub(crate) async fn serve(shared: Arc<Shared>, sock: TcpStream, open: Open) {
    let (rd, wr) = sock.into_split();
    session(shared, rd, wr, open).await;
}

/// A connection over TLS.
#[cfg(feature = "tls")]
pub(crate) async fn serve_tls(shared: Arc<Shared>, sock: tokio_rustls::server::TlsStream<TcpStream>, open: Open) {
    let (rd, wr) = tokio::io::split(sock);
    session(shared, rd, wr, open).await;
}

/// A client's session, until either side closes it.
async fn session<R: AsyncRead + SpinRead + Unpin, W: AsyncWrite + Unpin>(shared: Arc<Shared>, mut rd: R, mut wr: W, _open: Open) {
    let mut stop = shared.stop.subscribe();
    let mut buf = BytesMut::with_capacity(4096);
    let mut session =
        Session { shell: Shell::Command, hushed: false, role: shared.config.open_role(), pending: String::new(), balance: sexpr_shell::Balance::default() };
    if session.role.is_some() && write_within(&shared, &mut wr, PROMPT.as_bytes()).await.is_err() {
        return;
    }
    let mut budget = Budget::new(&shared);
    let mut replies = String::new();
    let mut out = String::new();
    loop {
        // Before its token a client gets a few seconds; after, the idle limit.
        let patience = if session.role.is_some() { shared.config.idle_timeout } else { Some(shared.config.handshake_timeout) };
        let read = match spin_read(&shared, &rd, &mut buf) {
            Some(r) => r,
            None => tokio::select! {
                r = rd.read_buf(&mut buf) => r,
                _ = stop.wait_for(|s| *s) => return,
                _ = sleep_or_never(patience) => Err(std::io::ErrorKind::TimedOut.into()),
            },
        };
        if read.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::TimedOut) {
            shared.stats.timed_out.fetch_add(1, Ordering::Relaxed);
            let _ = write_within(&shared, &mut wr, b"error: nothing was sent for too long; closing the connection\n").await;
            return;
        }
        let at_eof = !matches!(read, Ok(n) if n > 0);
        // Replies are held until the writes they acknowledge are durable.
        let mut wrote = 0;
        // Every complete line in the buffer; at the end of input, the rest too.
        loop {
            // Before the token, a line is a token: no need for megabytes.
            let limit = if session.role.is_some() { shared.config.max_line } else { PRE_AUTH_LINE };
            // Ctrl-D ends a line of its own, as upstream's reader has it.
            let (raw, end) = match memchr::memchr2(b'\n', CTRL_D, &buf) {
                Some(i) if i > limit => return refuse_long_line(&shared, &mut wr, &mut replies, wrote, limit).await,
                Some(i) => {
                    let keep = if buf[i] == CTRL_D { i + 1 } else { i };
                    (buf.split_to(i + 1), keep)
                }
                None if buf.len() > limit => return refuse_long_line(&shared, &mut wr, &mut replies, wrote, limit).await,
                None if at_eof && !buf.is_empty() => {
                    let rest = buf.split();
                    let n = rest.len();
                    (rest, n)
                }
                None => break,
            };
            let line = raw[..end].strip_suffix(b"\r").unwrap_or(&raw[..end]);
            let line = strip_telnet_commands(line);
            out.clear();
            let step = session.line(&shared, &line, &mut out);
            wrote = wrote.max(crate::State::take_written());
            // A long reply moves rather than being copied.
            if replies.is_empty() {
                std::mem::swap(&mut replies, &mut out);
            } else {
                replies.push_str(&out);
            }
            if step == Step::Close {
                let _ = send(&shared, &mut wr, &mut replies, wrote).await;
                return;
            }
            // A long pipelined batch goes out in parts.
            if replies.len() >= REPLY_CHUNK {
                if send(&shared, &mut wr, &mut replies, wrote).await.is_err() {
                    return;
                }
                wrote = 0;
            }
        }
        if send(&shared, &mut wr, &mut replies, wrote).await.is_err() || at_eof {
            return;
        }
        if !budget.hold(buf.len() + session.pending.len()) {
            // Its input budget goes back first: the message may wait on the client.
            drop(budget);
            let _ = write_within(&shared, &mut wr, b"error: the server holds too much unfinished input from its clients; closing the connection\n").await;
            return;
        }
        // A connection that sat idle with a large buffer gives it back.
        if buf.is_empty() && buf.capacity() > 64 * 1024 {
            buf = BytesMut::with_capacity(4096);
        }
        if replies.capacity() > REPLY_CHUNK * 2 {
            replies = String::new();
        }
        if out.capacity() > REPLY_CHUNK * 2 {
            out = String::new();
        }
    }
}

/// Replies are written in parts of about this size.
const REPLY_CHUNK: usize = 64 * 1024;

/// Writes the replies once write `wrote` is durable (see [`crate::State`]);
/// if it never will be, says so instead and fails.
async fn send(shared: &Shared, wr: &mut (impl AsyncWrite + Unpin), replies: &mut String, wrote: u64) -> std::io::Result<()> {
    if let Err(msg) = shared.state.durable(wrote).await {
        replies.clear();
        let _ = write_within(shared, wr, format!("error: {msg}; closing the connection\n").as_bytes()).await;
        return Err(std::io::Error::other("the store is broken"));
    }
    let sent = write_within(shared, wr, replies.as_bytes()).await;
    replies.clear();
    sent
}

/// Writes `bytes`, failing if the client takes none of them for
/// [`crate::Config::write_timeout`]: a client that stops reading would
/// otherwise hold its reply's memory, and its connection, for ever.
pub(crate) async fn write_within(shared: &Shared, wr: &mut (impl AsyncWrite + Unpin), mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match tokio::time::timeout(shared.config.write_timeout, wr.write(bytes)).await {
            Ok(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(Ok(n)) => bytes = &bytes[n..],
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                shared.stats.timed_out.fetch_add(1, Ordering::Relaxed);
                return Err(std::io::ErrorKind::TimedOut.into());
            }
        }
    }
    // TLS holds the last record until flushed; a socket's flush does nothing.
    match tokio::time::timeout(shared.config.write_timeout, wr.flush()).await {
        Ok(flushed) => flushed,
        Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
    }
}

/// Sleeps for `d`, or forever.
pub(crate) async fn sleep_or_never(d: Option<std::time::Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// A connection's share of the server's budget for unfinished input
/// ([`crate::Config::max_buffered`]); given back when it closes.
pub(crate) struct Budget<'a> {
    shared: &'a Shared,
    held: usize,
}

/// Input each connection may hold without drawing on the budget.
const FREE_INPUT: usize = 64 * 1024;

impl<'a> Budget<'a> {
    pub(crate) fn new(shared: &'a Shared) -> Self {
        Budget { shared, held: 0 }
    }

    /// Accounts for `bytes` of unfinished input now held; false if that
    /// would take the server over its budget (nothing is taken then).
    pub(crate) fn hold(&mut self, bytes: usize) -> bool {
        let want = bytes.saturating_sub(FREE_INPUT);
        let total = &self.shared.stats.buffered;
        if want > self.held {
            let more = want - self.held;
            if total.fetch_add(more, Ordering::AcqRel) + more > self.shared.config.max_buffered {
                total.fetch_sub(more, Ordering::AcqRel);
                self.shared.stats.over_budget.fetch_add(1, Ordering::Relaxed);
                return false;
            }
        } else {
            total.fetch_sub(self.held - want, Ordering::AcqRel);
        }
        self.held = want;
        true
    }
}

impl Drop for Budget<'_> {
    fn drop(&mut self) {
        self.shared.stats.buffered.fetch_sub(self.held, Ordering::AcqRel);
    }
}

const IAC: u8 = 0xFF;

/// Drops telnet commands (IAC sequences, which a telnet client sends on
/// Ctrl-C and the like) from a line; the command itself is not acted on.
fn strip_telnet_commands(line: &[u8]) -> Cow<'_, [u8]> {
    if !line.contains(&IAC) {
        return Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        match (line[i], line.get(i + 1)) {
            (IAC, Some(&IAC)) => {
                out.push(IAC);
                i += 2;
            }
            // WILL, WONT, DO, DONT carry an option byte.
            (IAC, Some(&(0xFB..=0xFE))) => i += 3,
            (IAC, _) => i += 2,
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Says why, and ends the connection: nothing of the line is evaluated
/// (the commands before it are answered first).
async fn refuse_long_line(shared: &Shared, wr: &mut (impl AsyncWrite + Unpin), replies: &mut String, wrote: u64, limit: usize) {
    if send(shared, wr, replies, wrote).await.is_err() {
        return;
    }
    let msg = format!("error: line longer than {limit} bytes; closing the connection\n");
    let _ = write_within(shared, wr, msg.as_bytes()).await;
}

/// How long a connection polls for the next command before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(40);

/// With few clients connected, polls the socket for a moment before the
/// task sleeps: a client that answers at once then finds the server awake,
/// and a round trip pays one wake-up between cores instead of two (on a
/// VM, each is tens of microseconds). `None` if nothing came.
fn spin_read(shared: &Shared, rd: &impl SpinRead, buf: &mut BytesMut) -> Option<std::io::Result<usize>> {
    if !rd.can_spin() || shared.stats.open.load(Ordering::Relaxed) > 2 {
        return None;
    }
    let start = std::time::Instant::now();
    while start.elapsed() < SPIN {
        match rd.read_now(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::hint::spin_loop(),
            other => return Some(other),
        }
    }
    None
}

/// A connection's read half that [`spin_read`] may poll: a plain
/// socket's. A TLS stream's may not (its records are read and decrypted
/// only by polling the stream).
pub(crate) trait SpinRead {
    fn can_spin(&self) -> bool;
    /// Reads what has arrived, without waiting (`WouldBlock` if nothing).
    fn read_now(&self, buf: &mut BytesMut) -> std::io::Result<usize>;
}

impl SpinRead for OwnedReadHalf {
    fn can_spin(&self) -> bool {
        true
    }

    fn read_now(&self, buf: &mut BytesMut) -> std::io::Result<usize> {
        self.try_read_buf(buf)
    }
}

impl<T> SpinRead for tokio::io::ReadHalf<T> {
    fn can_spin(&self) -> bool {
        false
    }

    fn read_now(&self, _: &mut BytesMut) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::WouldBlock.into())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn telnet_commands_are_dropped_from_lines() {
        let strip = super::strip_telnet_commands;
        assert_eq!(&*strip(b"help"), b"help");
        assert_eq!(&*strip(b"\xff\xf4help"), b"help", "IAC IP");
        assert_eq!(&*strip(b"he\xff\xfd\x01lp"), b"help", "IAC DO ECHO");
        assert_eq!(&*strip(b"a\xff\xffb"), b"a\xffb", "an escaped 0xFF stays");
        assert_eq!(&*strip(b"x\xff"), b"x");
    }

    #[test]
    fn stats_hide_passwords_and_tokens() {
        assert_eq!(super::redacted("postgres://me:secret@db:5432/kb"), "postgres://me@db:5432/kb");
        assert_eq!(super::redacted("cog://host:17001?token=t"), "cog://host:17001");
        assert_eq!(super::redacted("lmdb:///var/lib/kb"), "lmdb:///var/lib/kb");
        assert_eq!(super::redacted("/plain/dir"), "/plain/dir");
    }

    #[test]
    fn http_request_lines_are_recognised() {
        assert!(super::looks_like_http("POST / HTTP/1.1"));
        assert!(super::looks_like_http("Host: 127.0.0.1:17001"));
        assert!(!super::looks_like_http("help"));
        assert!(!super::looks_like_http("sexpr"));
    }
}

#[derive(PartialEq, Eq)]
enum Step {
    Continue,
    Close,
}

struct Session {
    shell: Shell,
    /// `json hush`: no banner, no prompts.
    hushed: bool,
    /// What the client may do; `None` until it sends a token.
    role: Option<Role>,
    /// Lines of an unfinished multi-line expression.
    pending: String,
    balance: sexpr_shell::Balance,
}

impl Session {
    fn line(&mut self, shared: &Shared, raw: &[u8], out: &mut String) -> Step {
        let Some(role) = self.role else {
            if let Some(role) = shared.config.role_of(raw) {
                self.role = Some(role);
                out.push_str(PROMPT);
                return Step::Continue;
            }
            out.push_str("error: this server wants its token as the first line; closing the connection\n");
            return Step::Close;
        };
        let ctrl_d = raw.last() == Some(&CTRL_D);
        let Ok(text) = std::str::from_utf8(raw) else {
            match self.shell {
                Shell::Command => out.push_str("error: the line is not valid UTF-8\n"),
                Shell::Sexpr => {
                    sexpr_shell::error_reply("the line is not valid UTF-8", out);
                    out.push('\n');
                }
                Shell::Json => json_shell::error_reply("the line is not valid UTF-8", out),
                Shell::Scm => out.push_str("ERROR: the line is not valid UTF-8\n"),
            }
            self.prompt(out);
            return Step::Continue;
        };
        shared.stats.commands.fetch_add(1, Ordering::Relaxed);
        match self.shell {
            Shell::Command => {
                if ctrl_d {
                    return Step::Close;
                }
                if looks_like_http(text) {
                    out.push_str("error: this is the telnet port, not HTTP; closing the connection\n");
                    return Step::Close;
                }
                self.command(shared, role, text.trim(), out)
            }
            Shell::Sexpr | Shell::Json | Shell::Scm => {
                if self.pending.is_empty() && (ctrl_d || text.trim() == ".") {
                    if matches!(self.shell, Shell::Json | Shell::Scm) && !self.hushed {
                        out.push_str("Exiting the shell\n");
                    }
                    self.shell = Shell::Command;
                    self.prompt(out);
                    return Step::Continue;
                }
                if self.pending.len() + text.len() > shared.config.max_line {
                    let _ = writeln!(out, "error: expression longer than {} bytes; closing the connection", shared.config.max_line);
                    return Step::Close;
                }
                self.pending.push_str(text);
                self.pending.push('\n');
                if matches!(self.shell, Shell::Sexpr | Shell::Scm) {
                    self.balance.feed(text);
                    self.balance.feed("\n");
                    if self.balance.incomplete() {
                        return Step::Continue;
                    }
                }
                self.balance = sexpr_shell::Balance::default();
                let cmd = std::mem::take(&mut self.pending);
                if cmd.trim().is_empty() {
                    return Step::Continue;
                }
                if self.shell == Shell::Scm {
                    evaluate_scm(shared, cmd.trim(), out);
                } else {
                    evaluate(shared, role, self.shell == Shell::Json, cmd.trim(), out);
                }
                self.prompt(out);
                Step::Continue
            }
        }
    }

    fn prompt(&self, out: &mut String) {
        match self.shell {
            Shell::Command => out.push_str(PROMPT),
            Shell::Json if !self.hushed => out.push_str(JSON_PROMPT),
            Shell::Scm if !self.hushed => out.push_str(SCM_PROMPT),
            _ => {}
        }
    }

    fn command(&mut self, shared: &Shared, role: Role, line: &str, out: &mut String) -> Step {
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        if role == Role::Read && writes(cmd) {
            let _ = writeln!(out, "error: {}", crate::read_only_refusal(if cmd.starts_with('(') { "Scheme" } else { cmd }));
            self.prompt(out);
            return Step::Continue;
        }
        match cmd {
            "" => {}
            "help" | "h" => out.push_str(HELP),
            "list" => out.push_str(LIST),
            "stats" => stats(shared, out),
            "quit" | "exit" | "q" => return Step::Close,
            "shutdown" => {
                out.push_str("Shutting down cogserver\n");
                shared.stop.send_replace(true);
                return Step::Close;
            }
            "sexpr" => {
                self.shell = Shell::Sexpr;
                return Step::Continue;
            }
            "json" | "scm" => {
                let (shell, name) = if cmd == "json" { (Shell::Json, "JSON") } else { (Shell::Scm, "scheme") };
                self.shell = shell;
                self.hushed = matches!(words.next(), Some("hush" | "quiet"));
                if !self.hushed {
                    let _ = writeln!(out, "Entering {name} shell; use ^D or a single . on a line by itself to exit.");
                }
                self.prompt(out);
                return Step::Continue;
            }
            "py" => out.push_str("error: the py shell is not available: this server was built without it\n"),
            // An expression at the command prompt runs once in the scm shell.
            _ if cmd.starts_with('(') => evaluate_scm(shared, line, out),
            other => {
                let _ = writeln!(out, "command \"{other}\" not found");
                out.push_str(HELP);
            }
        }
        self.prompt(out);
        Step::Continue
    }
}

/// Does the command shell's command `cmd` change the space, or run code
/// that could (a Scheme expression, the `scm` and `py` shells), or stop
/// the server?
fn writes(cmd: &str) -> bool {
    matches!(cmd, "shutdown" | "scm" | "py") || cmd.starts_with('(')
}

/// Runs one `json` or `sexpr` shell command and appends its reply line.
pub(crate) fn evaluate(shared: &Shared, role: Role, json: bool, cmd: &str, out: &mut String) {
    let start = out.len();
    let limits = shared.query_limits(role);
    let run = |out: &mut String| {
        atomweave::query::with_limits(limits, || {
            if json {
                json_shell::eval_as(&shared.state, role, cmd, out)
            } else {
                sexpr_shell::eval_as(&shared.state, role, cmd, out)
            }
        })
    };
    let began = std::time::Instant::now();
    // A command that may take long, or write to a store (a batch commit,
    // a network round trip), moves the other connections off this worker
    // thread first; so does any command while others are connected, as
    // even a lookup can answer with a long reply.
    let others = shared.stats.open.load(Ordering::Relaxed) > 1;
    let ok = if others || is_heavy(cmd) || shared.config.store.is_some() { tokio::task::block_in_place(|| run(out)) } else { run(out) };
    shared.metrics.command(if json { metrics::Shell::Json } else { metrics::Shell::Sexpr }, ok, Some(began.elapsed()));
    if out.len() > start && !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Runs one `scm` shell command: what it printed and its value, or its error.
#[cfg(feature = "scheme")]
pub(crate) fn evaluate_scm(shared: &Shared, code: &str, out: &mut String) {
    // Scheme may run as long as the user asks: off the async workers.
    let began = std::time::Instant::now();
    let done = tokio::task::block_in_place(|| {
        let space = *shared.scheme_space.get_or_init(|| {
            if let Some(bytes) = shared.config.scm_max_heap {
                atomweave_guile::limit_heap(bytes);
            }
            atomweave_guile::boot(shared.state.space.clone());
            let index = atomweave_guile::register_space(shared.state.space.clone());
            if let Some(store) = shared.state.for_scheme() {
                atomweave_guile::give_store(index, store);
            }
            index
        });
        atomweave_guile::with_guile(|| {
            atomweave_guile::select_space(space);
            atomweave_guile::eval_within(code, shared.config.scm_timeout, &shared.evals)
        })
    });
    shared.metrics.command(metrics::Shell::Scm, done.is_ok(), Some(began.elapsed()));
    match done {
        Ok(text) => out.push_str(&text),
        Err(e) => {
            let _ = writeln!(out, "ERROR: {e}");
        }
    }
}

/// Without Scheme, the `scm` shell's every command says so.
#[cfg(not(feature = "scheme"))]
pub(crate) fn evaluate_scm(shared: &Shared, _: &str, out: &mut String) {
    shared.metrics.command(metrics::Shell::Scm, false, None);
    out.push_str("ERROR: this server was built without Scheme (atomweave-server's scheme feature): the scm shell cannot evaluate\n");
}

/// A store URL without its password and query (which may hold a token):
/// `stats` is shown to every client.
fn redacted(url: &str) -> String {
    let url = url.split('?').next().unwrap_or(url);
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            let user = authority.rsplit_once('@').and_then(|(u, _)| u.split(':').next()).map_or(String::new(), |u| format!("{u}@"));
            if path.is_empty() && !rest.contains('/') {
                format!("{scheme}://{user}{host}")
            } else {
                format!("{scheme}://{user}{host}/{path}")
            }
        }
        None => url.to_string(),
    }
}

/// An HTTP request line or header: a browser's form posted to this port
/// would otherwise have its body run as commands.
fn looks_like_http(line: &str) -> bool {
    let line = line.trim_end();
    (line.ends_with(" HTTP/1.1") || line.ends_with(" HTTP/1.0"))
        && line.split(' ').next().is_some_and(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_uppercase()))
        || line.get(..5).is_some_and(|h| h.eq_ignore_ascii_case("host:"))
}

/// Commands that may run long enough to hold up other connections.
fn is_heavy(cmd: &str) -> bool {
    ["cog-get-atoms", "cog-execute-cache!", "cog-atomspace-clear", "cog-extract-recursive!", "getAtoms", "execute", "loadAtoms"].iter().any(|c| cmd.contains(c))
}

const JSON_PROMPT: &str = "json> ";
const SCM_PROMPT: &str = "guile> ";

/// Upstream's layout without its colours: names padded to the longest.
const HELP: &str = "Available commands:
  help:      List the available commands
  json:      Enter the JSON shell
  list:      List the available shells
  py:        Enter the python shell (not built into this server)
  quit:      Close the shell connection
  scm:       Enter the scheme shell
  sexpr:     Enter the s-expression shell
  shutdown:  Shut down the cogserver, flushing its store
  stats:     Print some diagnostic statistics about the server.
";

const LIST: &str = "   Shell    Status
   -----    ------
   json     built in
   sexpr    built in
   py       not built in
   scm      built in
";

pub(crate) fn stats(shared: &Shared, out: &mut String) {
    let up = shared.started.elapsed().as_secs();
    let s = &shared.stats;
    let _ = writeln!(out, "connections: {} open, {} since start", s.open.load(Ordering::Relaxed), s.accepted.load(Ordering::Relaxed));
    let _ = writeln!(out, "commands: {}", s.commands.load(Ordering::Relaxed));
    let _ = writeln!(out, "atoms: {} ({} nodes, {} links)", shared.state.space.size(), shared.state.space.num_nodes(), shared.state.space.num_links());
    let _ = writeln!(out, "uptime: {}h {:02}m {:02}s", up / 3600, up / 60 % 60, up % 60);
    let _ = writeln!(out, "memory: {:.1} MiB resident", crate::resident_bytes() as f64 / (1 << 20) as f64);
    let _ = writeln!(out, "store: {}", shared.config.store.as_deref().map_or("none".into(), redacted));
    if shared.config.store.is_some() {
        let sync = match shared.config.sync {
            crate::Durability::Always => "before each reply".to_string(),
            crate::Durability::Within(d) => format!("within {} ms of each reply", d.as_millis()),
        };
        let _ = writeln!(out, "store lag: {} writes not yet durable (writes are made durable {sync})", shared.state.lag());
    }
    let _ = writeln!(
        out,
        "limits: {} connections refused at the cap of {}, {} closed idle, {} closed over the input budget ({} of {} MiB held)",
        s.refused.load(Ordering::Relaxed),
        shared.config.max_connections,
        s.timed_out.load(Ordering::Relaxed),
        s.over_budget.load(Ordering::Relaxed),
        s.buffered.load(Ordering::Relaxed) >> 20,
        shared.config.max_buffered >> 20
    );
}
