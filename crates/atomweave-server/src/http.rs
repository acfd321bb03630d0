//! The web port (18080): WebSocket shells at `/json`, `/sexpr` and `/scm`,
//! the figures for Prometheus at `/metrics`, and a plain-text status page
//! for any other GET.
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
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::telnet::{evaluate, stats, Open};
use crate::Shared;

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

/// Longest request head accepted.
const MAX_HEAD: usize = 16 * 1024;

pub(crate) async fn serve(shared: Arc<Shared>, mut sock: TcpStream, _open: Open) {
    let head = tokio::time::timeout(shared.config.handshake_timeout, read_head(&mut sock)).await.unwrap_or_default();
    let Some(head) = head else {
        let _ = respond(&mut sock, "400 Bad Request", "text/plain", "a request head of at most 16 KiB, ending in an empty line, was expected\n").await;
        return;
    };
    let mut lines = head.split("\r\n");
    let mut request = lines.next().unwrap_or("").split(' ');
    let (method, target) = (request.next().unwrap_or(""), request.next().unwrap_or(""));
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    };
    if method != "GET" {
        let _ = respond(&mut sock, "501 Not Implemented", "text/plain", "only GET is served here\n").await;
        return;
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(token) = &shared.config.token {
        let given = header("authorization")
            .and_then(|a| a.strip_prefix("Bearer ").map(str::to_string))
            .or_else(|| query.split('&').find_map(|kv| kv.strip_prefix("token=")).map(str::to_string));
        if !given.is_some_and(|g| crate::same_secret(g.as_bytes(), token.as_bytes())) {
            let _ = respond(&mut sock, "401 Unauthorized", "text/plain", "this server wants its token: Authorization: Bearer T, or ?token=T\n").await;
            return;
        }
    }
    // A browser names the page that opened the socket: any web page the
    // user visits could otherwise drive the server.
    if let Some(origin) = header("origin").filter(|o| !shared.config.allow_origins.iter().any(|a| a == o)) {
        let msg = format!("a web page ({origin}) may use this server only if it was started with --allow-origin {origin}\n");
        let _ = respond(&mut sock, "403 Forbidden", "text/plain", &msg).await;
        return;
    }
    if shared.config.token.is_none() && !header("host").is_some_and(|h| loopback_host(&h)) {
        let _ = respond(
            &mut sock,
            "421 Misdirected Request",
            "text/plain",
            "without --token this server answers requests for 127.0.0.1, [::1] or localhost only\n",
        )
        .await;
        return;
    }
    let upgrade = header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if !upgrade && path == "/metrics" {
        let page = shared.metrics.render(snapshot(&shared));
        let _ = respond(&mut sock, "200 OK", crate::metrics::CONTENT_TYPE, &page).await;
        return;
    }
    if !upgrade {
        let mut page = String::from("atomweave CogServer\n\n");
        stats(&shared, &mut page);
        page.push_str("\nWebSocket shells: /json, /sexpr, /scm; Prometheus figures: /metrics\n");
        let _ = respond(&mut sock, "200 OK", "text/plain; charset=utf-8", &page).await;
        return;
    }
    #[derive(Copy, Clone, PartialEq)]
    enum Kind {
        Json,
        Sexpr,
        Scm,
    }
    let kind = match path {
        "/json" => Kind::Json,
        "/sexpr" => Kind::Sexpr,
        "/scm" => Kind::Scm,
        "/py" => {
            let _ = respond(&mut sock, "404 Not Found", "text/plain", &format!("{path}: this server was built without that shell\n")).await;
            return;
        }
        _ => {
            let _ = respond(&mut sock, "404 Not Found", "text/plain", &format!("404 Not Found\nno shell at {path}; try /json, /sexpr or /scm\n")).await;
            return;
        }
    };
    let Some(key) = header("sec-websocket-key") else {
        let _ = respond(&mut sock, "400 Bad Request", "text/plain", "a WebSocket upgrade needs Sec-WebSocket-Key\n").await;
        return;
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let reply = format!("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n");
    if sock.write_all(reply.as_bytes()).await.is_err() {
        return;
    }
    let limit = shared.config.max_line;
    let config = WebSocketConfig::default().max_message_size(Some(limit)).max_frame_size(Some(limit));
    let mut ws = WebSocketStream::from_raw_socket(sock, Role::Server, Some(config)).await;
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
                Kind::Scm => crate::telnet::evaluate_scm(&shared, cmd.trim(), &mut out),
                k => evaluate(&shared, k == Kind::Json, cmd.trim(), &mut out),
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
async fn read_head(sock: &mut TcpStream) -> Option<String> {
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

async fn respond(sock: &mut TcpStream, status: &str, kind: &str, body: &str) -> std::io::Result<()> {
    let msg = format!("HTTP/1.1 {status}\r\nServer: atomweave\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    sock.write_all(msg.as_bytes()).await?;
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
