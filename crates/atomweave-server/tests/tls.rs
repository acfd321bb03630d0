//! TLS on both listeners, on a real server: a self-signed certificate
//! made for the test (rcgen), the server's files read as a user gives
//! them, and rustls clients: the telnet shells over TLS, https and wss on
//! the web port, the roles over TLS, a plain client refused, bad files
//! named in their errors.
#![cfg(feature = "tls")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use atomweave_server::{tls_config, Config, Token};
use rustls::pki_types::{CertificateDer, ServerName};

mod common;
use common::*;

/// A self-signed certificate for localhost, its files, and a client
/// configuration that trusts it.
struct Pki {
    _dir: tempfile::TempDir,
    cert: PathBuf,
    key: PathBuf,
    client: Arc<rustls::ClientConfig>,
}

fn pki() -> Pki {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.key_pair.serialize_pem()).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(made.cert.der().to_vec())).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Pki { _dir: dir, cert, key, client: Arc::new(client) }
}

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

fn connect_tls(pki: &Pki, addr: SocketAddr) -> Tls {
    let sock = TcpStream::connect(addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let conn = rustls::ClientConnection::new(pki.client.clone(), ServerName::try_from("localhost").unwrap()).unwrap();
    rustls::StreamOwned::new(conn, sock)
}

fn tls_server(pki: &Pki, tokens: Vec<Token>) -> Running {
    start(Config { tls: Some(tls_config(&pki.cert, &pki.key).unwrap()), tokens, ..Config::default() })
}

/// Sends `text` and reads until `until` (inclusive).
fn exchange(s: &mut BufReader<Tls>, text: &str, until: &str) -> String {
    s.get_mut().write_all(text.as_bytes()).unwrap();
    s.get_mut().flush().unwrap();
    let mut got = String::new();
    while !got.ends_with(until) {
        let mut line = String::new();
        assert!(s.read_line(&mut line).unwrap() > 0, "closed before {until:?}: {got}");
        got.push_str(&line);
    }
    got
}

#[test]
fn the_telnet_port_speaks_tls() {
    let pki = pki();
    let srv = tls_server(&pki, vec![Token::write("w"), Token::read("r")]);
    let mut w = BufReader::new(connect_tls(&pki, srv.addr));
    // The prompt follows the token on the same line, so read to the reply's end.
    let reply = exchange(&mut w, "w\nsexpr\n(Inheritance (Concept \"cat\") (Concept \"animal\"))\n", "\"animal\"))\n");
    assert!(reply.ends_with("(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\"))\n"), "{reply}");
    let mut r = BufReader::new(connect_tls(&pki, srv.addr));
    let refused = exchange(&mut r, "r\nsexpr\n(Concept \"dog\")\n", "\n");
    assert!(refused.contains("may only read"), "{refused}");
    assert_eq!(exchange(&mut r, "(cog-node 'ConceptNode \"cat\")\n", "\n"), "(ConceptNode \"cat\")\n");

    // A client that does not speak TLS gets nothing, and the server serves on.
    let mut plain = TcpStream::connect(srv.addr).unwrap();
    plain.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    plain.write_all(b"w\nsexpr\n(Concept \"plain\")\n").unwrap();
    let mut got = Vec::new();
    let _ = plain.read_to_end(&mut got);
    assert!(!String::from_utf8_lossy(&got).contains("ConceptNode"), "a plain client was served: {got:?}");
    let space = srv.finish();
    assert_eq!(space.size(), 3, "cat, animal and their link; nothing of the read or plain clients");
}

#[test]
fn the_web_port_serves_https_and_wss() {
    let pki = pki();
    let srv = tls_server(&pki, vec![Token::write("w"), Token::read("r")]);
    let mut page = connect_tls(&pki, srv.web);
    page.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer r\r\n\r\n").unwrap();
    let mut body = String::new();
    let _ = page.read_to_string(&mut body);
    assert!(body.starts_with("HTTP/1.1 200") && body.contains("atomweave_atoms"), "{body}");

    let wss = |token: &str| {
        let url = format!("wss://localhost:{}/sexpr?token={token}", srv.web.port());
        tungstenite::client::client(url, connect_tls(&pki, srv.web)).map(|(ws, _)| ws).unwrap()
    };
    let ask = |ws: &mut tungstenite::WebSocket<Tls>, cmd: &str| {
        ws.send(tungstenite::Message::text(cmd)).unwrap();
        ws.read().unwrap().into_text().unwrap().to_string()
    };
    let mut w = wss("w");
    assert_eq!(ask(&mut w, "(Concept \"web\")"), "(ConceptNode \"web\")\n");
    let mut r = wss("r");
    assert!(ask(&mut r, "(Concept \"other\")").contains("may only read"));
    assert_eq!(ask(&mut r, "(cog-node 'ConceptNode \"web\")"), "(ConceptNode \"web\")\n");
    assert_eq!(srv.finish().size(), 1);
}

#[test]
fn bad_certificate_files_are_named_in_their_errors() {
    let pki = pki();
    let missing = pki.cert.with_file_name("nope.pem");
    let err = tls_config(&missing, &pki.key).err().unwrap();
    assert!(err.contains("nope.pem"), "{err}");
    // The key given as the certificate: no certificate in it.
    let err = tls_config(&pki.key, &pki.key).err().unwrap();
    assert!(err.contains("key.pem") && err.contains("no certificate"), "{err}");
    // The certificate given as the key.
    let err = tls_config(&pki.cert, &pki.cert).err().unwrap();
    assert!(err.contains("cert.pem"), "{err}");
    // A key of another certificate.
    let other = pki_other_key(&pki);
    let err = tls_config(&pki.cert, &other).err().unwrap();
    assert!(err.contains("do not go together"), "{err}");
}

/// A key file of a second, unrelated certificate, beside `pki`'s files.
fn pki_other_key(pki: &Pki) -> PathBuf {
    let made = rcgen::generate_simple_self_signed(vec!["other".to_string()]).unwrap();
    let path = pki.key.with_file_name("other-key.pem");
    std::fs::write(&path, made.key_pair.serialize_pem()).unwrap();
    path
}
