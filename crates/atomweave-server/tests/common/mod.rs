//! What the server's tests share: a real server on free loopback ports,
//! a raw telnet client, and WebSocket and HTTP requests.
#![allow(dead_code)] // each test file uses its own part

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread::JoinHandle;
use std::time::Duration;

use atomweave::AtomSpace;
use atomweave_server::{Config, Server, StopHandle};

/// A server on its own runtime and thread, stopped when dropped.
pub struct Running {
    pub addr: SocketAddr,
    pub web: SocketAddr,
    pub stop: StopHandle,
    done: Option<JoinHandle<AtomSpace>>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("cog://{}", self.addr)
    }

    /// Stops the server and returns its space.
    pub fn finish(mut self) -> AtomSpace {
        self.stop.stop();
        self.done.take().unwrap().join().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
    }
}

pub fn start(config: Config) -> Running {
    let (tx, rx) = std::sync::mpsc::channel();
    let done = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async move {
            let server = Server::bind(Config { port: 0, http_port: Some(0), ..config }).await.unwrap();
            tx.send((server.local_addr(), server.http_addr().unwrap(), server.stop_handle())).unwrap();
            server.run().await.unwrap()
        })
    });
    let (addr, web, stop) = rx.recv().unwrap();
    Running { addr, web, stop, done: Some(done) }
}

/// A raw client: reads up to and including an expected text.
pub struct Client {
    pub rd: BufReader<TcpStream>,
    pub wr: TcpStream,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Client { rd: BufReader::new(s.try_clone().unwrap()), wr: s }
    }

    pub fn send(&mut self, text: &str) {
        self.wr.write_all(text.as_bytes()).unwrap();
    }

    /// Everything up to and including `until`.
    pub fn read_until(&mut self, until: &str) -> String {
        let mut got = Vec::new();
        while !got.ends_with(until.as_bytes()) {
            let mut b = [0u8; 1];
            let n = self.rd.read(&mut b).unwrap();
            assert!(n > 0, "closed before {until:?}; got {:?}", String::from_utf8_lossy(&got));
            got.push(b[0]);
        }
        String::from_utf8(got).unwrap()
    }

    pub fn line(&mut self) -> String {
        let mut s = String::new();
        self.rd.read_line(&mut s).unwrap();
        s
    }

    /// Enters the sexpr shell.
    pub fn sexpr(addr: SocketAddr) -> Client {
        let mut c = Client::connect(addr);
        c.read_until("opencog> ");
        c.send("sexpr\n");
        c
    }

    pub fn ask(&mut self, cmd: &str) -> String {
        self.send(&format!("{cmd}\n"));
        self.line().trim_end_matches('\n').to_string()
    }

    pub fn closed(&mut self) -> bool {
        let mut rest = Vec::new();
        self.rd.read_to_end(&mut rest).is_ok()
    }
}

pub fn ws(web: SocketAddr, path: &str) -> Result<tungstenite::WebSocket<TcpStream>, String> {
    let sock = TcpStream::connect(web).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    tungstenite::client::client(format!("ws://{web}{path}"), sock).map(|(ws, _)| ws).map_err(|e| match e {
        tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r)) => r.status().to_string(),
        other => other.to_string(),
    })
}

pub fn ws_ask(ws: &mut tungstenite::WebSocket<TcpStream>, cmd: &str) -> String {
    ws.send(tungstenite::Message::text(cmd)).unwrap();
    match ws.read().unwrap() {
        tungstenite::Message::Text(t) => t.to_string(),
        other => panic!("{other:?}"),
    }
}

pub fn http_get(web: SocketAddr, path: &str) -> String {
    http_get_as(web, path, &web.to_string())
}

pub fn http_get_as(web: SocketAddr, path: &str, host: &str) -> String {
    let mut s = TcpStream::connect(web).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// An HTTP response: its status line, its head's header lines, its body.
pub struct Response {
    pub status: String,
    pub head: String,
    pub body: String,
}

/// `method path` with `headers` (each a whole line, no CRLF) and `body`,
/// on a connection of its own.
pub fn http_request(web: SocketAddr, method: &str, path: &str, headers: &[String], body: &[u8]) -> Response {
    let mut s = TcpStream::connect(web).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {web}\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head in {out:?}"));
    let status = head.lines().next().unwrap().to_string();
    Response { status, head: head.to_string(), body: body.to_string() }
}
