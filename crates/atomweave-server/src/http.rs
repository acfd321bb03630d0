//! The web port (18080): the browser UI at `/` (its files embedded) and its
//! JSON API under `/api/`, WebSocket shells at `/json`, `/sexpr` and
//! `/scm`, MCP at `/mcp` (POST, [`crate::mcp`]), the figures for
//! Prometheus at `/metrics`, and a plain-text status page at `/status`.
//!
//! On a WebSocket each text message is one command and gets one text
//! message back: the reply line the telnet shell would send, without
//! prompts. A server with a token wants it as `Authorization: Bearer T` or
//! `?token=T` in the URL. Requests that carry an `Origin` (made by a web
//! page in a browser) are refused unless that origin was allowed
//! (`--allow-origin`), token or not: a page could otherwise drive the
//! shells with a token it was given or guessed. Without a token, the
//! `Host` must name the loopback address, so that a page whose domain
//! was re-pointed at 127.0.0.1 (DNS rebinding) cannot read the status page.

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::{Role as Side, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::telnet::{evaluate, stats, Open};
use crate::{Role, Shared};

/// The server's figures now, for `/metrics`.
fn snapshot(shared: &Shared) -> crate::metrics::Snapshot {
    use std::sync::atomic::Ordering::Relaxed;
    let s = &shared.stats;
    let (store_commits, store_errors) = shared.state.commits();
    crate::metrics::Snapshot {
        open: s.open.load(Relaxed) as u64,
        accepted: s.accepted.load(Relaxed),
        refused: s.refused.load(Relaxed),
        timed_out: s.timed_out.load(Relaxed),
        over_budget: s.over_budget.load(Relaxed),
        atoms: shared.state.space.size() as u64,
        resident_bytes: crate::resident_bytes(),
        store_commits,
        store_errors,
        store_lag: shared.state.lag(),
    }
}

/// A connection to the web port: a plain socket, or TLS over one.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> Stream for S {}

/// Longest request head accepted.
const MAX_HEAD: usize = 16 * 1024;

/// A request's head: its method, path and query, and its header lines.
struct Request {
    head: String,
    method: String,
    path: String,
    query: String,
}

impl Request {
    fn parse(head: String) -> Request {
        let mut request = head.split("\r\n").next().unwrap_or("").split(' ');
        let (method, target) = (request.next().unwrap_or("").to_string(), request.next().unwrap_or(""));
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let (path, query) = (path.to_string(), query.to_string());
        Request { head, method, path, query }
    }

    /// The value of the header `name` (any case), if given (the first,
    /// if given more than once).
    fn header(&self, name: &str) -> Option<String> {
        self.headers(name).next()
    }

    /// Every value of the header `name` (any case).
    fn headers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = String> + 'a {
        self.head.split("\r\n").skip(1).filter_map(move |l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }

    /// Whether it asks for a WebSocket.
    fn is_upgrade(&self) -> bool {
        self.header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"))
    }
}

/// The shell a WebSocket path names.
#[derive(Copy, Clone, PartialEq)]
enum Kind {
    Json,
    Sexpr,
    Scm,
}

/// A connection to the web port: its request read and checked, then a
/// page, or a WebSocket shell until either side closes it.
pub(crate) async fn serve<S: Stream>(shared: Arc<Shared>, mut sock: S, _open: Open) {
    let head = tokio::time::timeout(shared.config.handshake_timeout, read_head(&mut sock)).await.unwrap_or_default();
    let Some(head) = head else {
        let _ = respond(&mut sock, "400 Bad Request", "text/plain", "a request head of at most 16 KiB, ending in an empty line, was expected\n").await;
        return;
    };
    let request = Request::parse(head);
    let role = match admit(&shared, &request) {
        Ok(role) => role,
        Err((status, why)) => {
            // RFC 6750: a 401 names the scheme it wants (MCP clients read it).
            let wants = if status.starts_with("401") { "WWW-Authenticate: Bearer realm=\"atomweave\"\r\n" } else { "" };
            refuse(&shared, &mut sock, &request, status, wants, &why).await;
            return;
        }
    };
    if request.path == "/mcp" {
        serve_mcp(&shared, &mut sock, &request, role).await;
        return;
    }
    if !request.is_upgrade() {
        serve_page(&shared, &mut sock, &request, role).await;
        return;
    }
    let kind = match shell_at(&request.path) {
        Ok(kind) => kind,
        Err(why) => {
            let _ = respond(&mut sock, "404 Not Found", "text/plain", &why).await;
            return;
        }
    };
    if kind == Kind::Scm && role == Role::Read {
        let _ = respond(&mut sock, "403 Forbidden", "text/plain", &format!("{}\n", crate::read_only_refusal("the scm shell"))).await;
        return;
    }
    let Some(key) = request.header("sec-websocket-key") else {
        let _ = respond(&mut sock, "400 Bad Request", "text/plain", "a WebSocket upgrade needs Sec-WebSocket-Key\n").await;
        return;
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let reply = format!("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n");
    if sock.write_all(reply.as_bytes()).await.is_err() || sock.flush().await.is_err() {
        return;
    }
    let limit = shared.config.max_line;
    let config = WebSocketConfig::default().max_message_size(Some(limit)).max_frame_size(Some(limit));
    let ws = WebSocketStream::from_raw_socket(sock, Side::Server, Some(config)).await;
    run_shell(&shared, ws, kind, role).await;
}

/// Whether the server answers a request at all, and the role of the
/// client: GET (and anything at `/mcp`, which answers it); a token of the
/// server's, if it has any; no web page's `Origin` but those allowed;
/// without a token, a loopback `Host`. Else the status and why.
fn admit(shared: &Shared, request: &Request) -> Result<Role, (&'static str, String)> {
    if request.method != "GET" && request.path != "/mcp" {
        return Err(("501 Not Implemented", "only GET is served here (and POST at /mcp)\n".into()));
    }
    let role = match shared.config.open_role() {
        Some(role) => role,
        None => {
            let given = request
                .header("authorization")
                .and_then(|a| a.strip_prefix("Bearer ").map(str::to_string))
                .or_else(|| request.query.split('&').find_map(|kv| kv.strip_prefix("token=")).map(str::to_string));
            let Some(role) = given.and_then(|g| shared.config.role_of(g.as_bytes())) else {
                return Err(("401 Unauthorized", "this server wants a token: Authorization: Bearer T, or ?token=T\n".into()));
            };
            role
        }
    };
    // A browser names the page that opened the socket: any web page the
    // user visits could otherwise drive the server.
    if let Some(origin) = request.header("origin").filter(|o| !shared.config.allow_origins.iter().any(|a| a == o)) {
        return Err(("403 Forbidden", format!("a web page ({origin}) may use this server only if it was started with --allow-origin {origin}\n")));
    }
    if !shared.config.wants_token() && !request.header("host").is_some_and(|h| loopback_host(&h)) {
        return Err(("421 Misdirected Request", "without --token this server answers requests for 127.0.0.1, [::1] or localhost only\n".into()));
    }
    Ok(role)
}

/// The browser UI's files, embedded: no network access needed to use it.
const UI: [(&str, &str, &str); 4] = [
    ("/", "text/html; charset=utf-8", include_str!("../ui/index.html")),
    ("/index.html", "text/html; charset=utf-8", include_str!("../ui/index.html")),
    ("/ui/app.js", "text/javascript; charset=utf-8", include_str!("../ui/app.js")),
    ("/ui/app.css", "text/css; charset=utf-8", include_str!("../ui/app.css")),
];

/// A GET that is no WebSocket upgrade: the UI's files, its API under
/// `/api/`, the figures at `/metrics`, the status text at `/status`.
async fn serve_page(shared: &Shared, sock: &mut impl Stream, request: &Request, role: Role) {
    let path = request.path.as_str();
    if path.starts_with("/api/") {
        // Off the network threads: a query or a long page may take a while.
        let (status, body) = tokio::task::block_in_place(|| crate::api::answer(shared, role, path, &request.query));
        let _ = respond(sock, status, "application/json", &body).await;
        return;
    }
    if path == "/metrics" {
        let page = shared.metrics.render(snapshot(shared));
        let _ = respond(sock, "200 OK", crate::metrics::CONTENT_TYPE, &page).await;
        return;
    }
    if let Some((_, kind, body)) = UI.iter().find(|(p, _, _)| *p == path) {
        let _ = respond(sock, "200 OK", kind, body).await;
        return;
    }
    if path == "/status" {
        let mut page = String::from("atomweave CogServer\n\n");
        stats(shared, &mut page);
        page.push_str("\nThe UI: /; WebSocket shells: /json, /sexpr, /scm; Prometheus figures: /metrics; the JSON API: /api/\n");
        let _ = respond(sock, "200 OK", "text/plain; charset=utf-8", &page).await;
        return;
    }
    let _ = respond(sock, "404 Not Found", "text/plain", &format!("nothing at {path}; the UI is at /\n")).await;
}

/// A request to `/mcp`: a POST of one JSON-RPC message, answered by
/// [`crate::mcp`] off the network threads; the reply waits until the
/// writes it acknowledges are durable.
async fn serve_mcp(shared: &Shared, sock: &mut impl Stream, request: &Request, role: Role) {
    let mut budget = crate::telnet::Budget::new(shared);
    let body = match mcp_body(shared, sock, request, &mut budget).await {
        Ok(body) => body,
        Err((status, why)) => {
            let allow = if status.starts_with("405") { "Allow: POST\r\n" } else { "" };
            refuse(shared, sock, request, status, allow, &format!("{why}\n")).await;
            return;
        }
    };
    shared.stats.commands.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let began = std::time::Instant::now();
    let header = |name: &str| request.headers(name).collect::<Vec<_>>();
    let reply = tokio::task::block_in_place(|| crate::mcp::answer(shared, role, &header, &body));
    drop((body, budget));
    // The tool's writes are durable before the reply that acknowledges them.
    let reply = match shared.state.durable(crate::State::take_written()).await {
        Ok(()) => reply,
        Err(why) => crate::mcp::not_durable(reply.id, &why),
    };
    shared.metrics.command(crate::metrics::Shell::Mcp, reply.ok, Some(began.elapsed()));
    let (kind, body) = match &reply.body {
        Some(body) => ("application/json", body.as_str()),
        None => ("text/plain", ""),
    };
    // A client that takes none of the reply for this long is dropped.
    let _ = tokio::time::timeout(shared.config.write_timeout, respond(sock, reply.status, kind, body)).await;
}

/// The body of a POST to `/mcp`: JSON, of a `Content-Length` of at most
/// `max_line` bytes (held against the server's input budget while it is
/// read and answered), arriving within the handshake timeout as the head
/// does. Else the status and why.
async fn mcp_body(
    shared: &Shared,
    sock: &mut impl Stream,
    request: &Request,
    budget: &mut crate::telnet::Budget<'_>,
) -> Result<Vec<u8>, (&'static str, String)> {
    let refuse = |status: &'static str, why: &str| Err((status, why.to_string()));
    if request.method != "POST" {
        return refuse("405 Method Not Allowed", "MCP takes a POST of one JSON-RPC message here (no session, so no GET stream and no DELETE)");
    }
    if request.header("transfer-encoding").is_some() {
        return refuse("501 Not Implemented", "send the body with a Content-Length, not chunked");
    }
    let kind = request.header("content-type").unwrap_or_default();
    if !kind.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json") {
        return refuse("415 Unsupported Media Type", "the body is JSON: Content-Type: application/json");
    }
    let accepts = request
        .header("accept")
        .is_none_or(|a| a.split(',').any(|t| matches!(t.split(';').next().unwrap_or("").trim(), "application/json" | "application/*" | "*/*")));
    if !accepts {
        return refuse("406 Not Acceptable", "the answer is application/json: Accept it");
    }
    let Some(length) = request.header("content-length").and_then(|l| l.parse::<usize>().ok()) else {
        return refuse("411 Length Required", "give the body's Content-Length");
    };
    if length > shared.config.max_line {
        return refuse("413 Content Too Large", &format!("a body of at most {} bytes (--max-line)", shared.config.max_line));
    }
    if !budget.hold(length) {
        return refuse("503 Service Unavailable", "the server holds as much unfinished input as it may (--max-buffered); try again");
    }
    let mut body = vec![0; length];
    match tokio::time::timeout(shared.config.handshake_timeout, sock.read_exact(&mut body)).await {
        Ok(Ok(_)) => Ok(body),
        Ok(Err(_)) => refuse("400 Bad Request", "the body ended before its Content-Length"),
        Err(_) => {
            shared.stats.timed_out.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            refuse("408 Request Timeout", "the body did not arrive whole in time")
        }
    }
}

/// Refuses a request, then reads (and drops) what body it may still be
/// sending, for a second at most: a socket closed with unread input sends
/// a reset, which can destroy the refusal before the client reads it.
async fn refuse(shared: &Shared, sock: &mut impl Stream, request: &Request, status: &str, extra: &str, why: &str) {
    if respond_with(sock, status, "text/plain", extra, why).await.is_err() || request.method == "GET" {
        return;
    }
    let drain = async {
        let mut left = shared.config.max_line.min(1 << 20);
        let mut buf = [0u8; 8192];
        while left > 0 {
            match sock.read(&mut buf).await {
                Ok(n) if n > 0 => left = left.saturating_sub(n),
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drain).await;
}

/// The shell at a WebSocket path, or the body of the 404 for a path with none.
fn shell_at(path: &str) -> Result<Kind, String> {
    match path {
        "/json" => Ok(Kind::Json),
        "/sexpr" => Ok(Kind::Sexpr),
        "/scm" => Ok(Kind::Scm),
        "/py" => Err(format!("{path}: this server was built without that shell\n")),
        _ => Err(format!("404 Not Found\nno shell at {path}; try /json, /sexpr or /scm\n")),
    }
}

/// A WebSocket shell: each text message one command, answered by one text
/// message, until the client closes, idles past the timeout, takes no
/// reply for too long, or the server stops.
async fn run_shell(shared: &Shared, mut ws: WebSocketStream<impl Stream>, kind: Kind, role: Role) {
    let mut stop = shared.stop.subscribe();
    let mut out = String::new();
    loop {
        let msg = tokio::select! {
            m = ws.next() => m,
            _ = stop.wait_for(|s| *s) => break,
            _ = crate::telnet::sleep_or_never(shared.config.idle_timeout) => {
                shared.stats.timed_out.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                break;
            }
        };
        let cmd = match msg {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Binary(_))) => {
                let _ = ws.send(Message::text("(error \"send commands as text messages\")\n")).await;
                break;
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
            // Closed, oversized or broken: nothing was evaluated of it.
            _ => break,
        };
        shared.stats.commands.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        out.clear();
        if !cmd.trim().is_empty() {
            match kind {
                Kind::Scm => crate::telnet::evaluate_scm(shared, cmd.trim(), &mut out),
                k => evaluate(shared, role, k == Kind::Json, cmd.trim(), &mut out),
            }
        }
        if let Err(msg) = shared.state.durable(crate::State::take_written()).await {
            let _ = ws.send(Message::text(format!("error: {msg}; closing the connection\n"))).await;
            break;
        }
        // A client that takes none of the reply for this long is closed.
        if !out.is_empty() && !matches!(tokio::time::timeout(shared.config.write_timeout, ws.send(Message::text(out.as_str()))).await, Ok(Ok(()))) {
            break;
        }
        if out.capacity() > 1 << 20 {
            out = String::new();
        }
    }
    let _ = tokio::time::timeout(shared.config.write_timeout, ws.close(None)).await;
}

/// Whether a `Host` header names this machine's loopback interface.
fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, port)| if port.bytes().all(|b| b.is_ascii_digit()) { h } else { host }),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The request head, up to its empty line; read a byte at a time so that
/// nothing after it (an eager client's first frame) is consumed.
async fn read_head(sock: &mut impl Stream) -> Option<String> {
    let mut head = Vec::with_capacity(512);
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_HEAD {
            return None;
        }
        let mut b = [0u8; 1];
        if sock.read(&mut b).await.ok()? == 0 {
            return None;
        }
        head.push(b[0]);
    }
    String::from_utf8(head).ok()
}

async fn respond(sock: &mut impl Stream, status: &str, kind: &str, body: &str) -> std::io::Result<()> {
    respond_with(sock, status, kind, "", body).await
}

/// A response with `extra` header lines (each ending in CRLF).
async fn respond_with(sock: &mut impl Stream, status: &str, kind: &str, extra: &str, body: &str) -> std::io::Result<()> {
    // The UI's page runs its own script only (no inline code, nothing from elsewhere).
    let head = format!(
        "HTTP/1.1 {status}\r\nServer: atomweave\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{extra}Content-Security-Policy: default-src 'self'\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    );
    // Head and body written apart: a long body is not copied once more.
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}

#[cfg(test)]
mod tests {
    #[test]
    fn loopback_hosts() {
        for h in ["127.0.0.1", "127.0.0.1:18080", "localhost:18080", "LOCALHOST", "[::1]:18080", "[::1]", "127.1.2.3:80"] {
            assert!(super::loopback_host(h), "{h}");
        }
        for h in ["evil.example", "evil.example:18080", "10.0.0.1:18080", "localhost.evil.example", "", "[::2]:80"] {
            assert!(!super::loopback_host(h), "{h}");
        }
    }
}
