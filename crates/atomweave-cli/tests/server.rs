//! `atomweave serve` and `atomweave shell-bench` as processes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

fn atomweave() -> Command {
    Command::new(env!("CARGO_BIN_EXE_atomweave"))
}

/// A server process, killed if a test fails before it stops it.
struct Served(std::process::Child);

impl std::ops::Deref for Served {
    type Target = std::process::Child;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Served {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `atomweave serve` with `args`; returns the child, its port and its stderr.
fn serve(args: &[&str]) -> (Served, u16, BufReader<std::process::ChildStderr>) {
    let mut child = atomweave().args(["serve", "--port", "0", "--no-http"]).args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let port = line.split("listening on 127.0.0.1:").nth(1).and_then(|r| r.split(' ').next()).and_then(|p| p.parse().ok());
    (Served(child), port.unwrap_or_else(|| panic!("no port in {line:?}")), err)
}

#[test]
fn sigterm_flushes_the_store_and_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().display());
    let (mut child, port, mut err) = serve(&["--store", &url]);
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"sexpr\n(cog-set-tv! (Inheritance (Concept \"cat\") (Concept \"animal\")) (stv 0.9 0.8))\n(ping)\n").unwrap();
    let mut rd = BufReader::new(s.try_clone().unwrap());
    let mut got = String::new();
    while !got.ends_with("()\n()\n") {
        let mut b = [0u8; 1];
        assert_eq!(rd.read(&mut b).unwrap(), 1, "{got}");
        got.push(b[0] as char);
    }
    // SAFETY: kill has no memory-safety preconditions; the pid is our child's.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(status.success(), "{rest}");
    assert!(rest.contains("stopped with 3 atoms, flushed to lmdb://"), "{rest}");
    let dump = atomweave().args(["dump", "--from", &url]).output().unwrap();
    let text = String::from_utf8(dump.stdout).unwrap();
    assert!(
        text.contains(
            "(InheritanceLink (alist (cons (PredicateNode \"*-TruthValueKey-*\")(SimpleTruthValue 0.9 0.8))) (ConceptNode \"cat\")(ConceptNode \"animal\"))"
        ),
        "{text}"
    );
}

#[test]
fn shell_bench_prints_the_seed_table() {
    let out = atomweave().args(["shell-bench", "-n", "200", "-c", "5", "--pipelined", "2000"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    for row in ["trivial shell command", "shell help command", "create same atom", "create various atoms", "no-wait socket atoms", "socket-wait response"] {
        let line = text.lines().find(|l| l.trim_start().starts_with(row)).unwrap_or_else(|| panic!("{row} in {text}"));
        assert_eq!(line.split_whitespace().filter(|w| w.parse::<f64>().is_ok()).count(), 6, "{line}");
    }
    assert!(text.contains("pipelined atom creation   2000 atoms") && text.contains(", 0 errors"), "{text}");
    assert!(text.contains("5 concurrent clients"), "{text}");

    // Against a running server, named by port.
    let (mut child, port, _err) = serve(&[]);
    let out = atomweave().args(["shell-bench", "--port", &port.to_string(), "-n", "100", "-c", "3", "--pipelined", "500"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains(&format!("server 127.0.0.1:{port}")));
    child.kill().unwrap();
    child.wait().unwrap();
    // Nothing listening: a clear error.
    let out = atomweave().args(["shell-bench", "--port", "1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.1:1"));
}

#[test]
fn bench_measures_through_the_server() {
    let (mut child, port, _err) = serve(&[]);
    let addr = format!("127.0.0.1:{port}");
    let out = atomweave()
        .args(["bench", "-m", "getType", "-m", "setTV", "-m", "getIncomingSet", "-m", "removeAtom", "-n", "300", "-s", "2000", "--repeat", "1", "-q"])
        .args(["--server", &addr])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Server"), "{text}");
    for m in ["getType", "setTV", "getIncomingSet", "removeAtom"] {
        let line = text.lines().find(|l| l.trim_start().starts_with(m)).unwrap();
        // K-ops/s and ns/op for the AtomSpace, then for the server.
        let nums: Vec<f64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        assert_eq!(nums.len(), 4, "{line}");
        assert!(nums[3] > 1000.0, "a round trip takes microseconds: {line}");
    }
    // The server holds the space the bench built there (less what removeAtom took).
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"stats\nquit\n").unwrap();
    let mut stats = String::new();
    s.read_to_string(&mut stats).unwrap();
    let atoms: usize = stats.split("atoms: ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(atoms > 1000, "{stats}");
    child.kill().unwrap();
    child.wait().unwrap();
    // No server there: the column says why.
    let out = atomweave().args(["bench", "-m", "getType", "-n", "100", "-s", "100", "-q", "--server", "127.0.0.1:1"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("127.0.0.1:1"), "{text}");
}

/// `stats` of the server at `port`.
fn stats(port: u16) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"stats\nquit\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn idle_connections_cost_little() {
    let (mut child, port, _err) = serve(&[]);
    let resident = |s: &str| -> f64 { s.split("memory: ").nth(1).and_then(|r| r.split(' ').next()).and_then(|m| m.parse().ok()).unwrap() };
    let before = resident(&stats(port));
    let idle: Vec<TcpStream> = (0..1000).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let after = loop {
        let s = stats(port);
        if s.contains("connections: 1001 open") {
            break resident(&s);
        }
        assert!(std::time::Instant::now() < deadline, "{s}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let per = (after - before) * 1024.0 / 1000.0;
    assert!(per < 32.0, "{per:.1} KiB per idle connection");
    drop(idle);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn deeply_nested_atoms_do_not_crash_the_server() {
    let (_child, port, _err) = serve(&[]);
    let depth = 4000;
    let atom = format!("{}(ConceptNode \"deep\"){}", "(ListLink ".repeat(depth), ")".repeat(depth));
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(format!("sexpr\n{atom}\n(cog-incoming-set (ConceptNode \"deep\"))\n(ping)\n").as_bytes()).unwrap();
    let mut rd = BufReader::new(s);
    let mut prompt = [0u8; 9];
    rd.read_exact(&mut prompt).unwrap();
    let mut lines = Vec::new();
    for _ in 0..3 {
        let mut l = String::new();
        rd.read_line(&mut l).unwrap();
        lines.push(l);
    }
    assert!(lines[0].starts_with("(ListLink (ListLink"), "{}", &lines[0][..80.min(lines[0].len())]);
    assert_eq!(lines[1].matches("ListLink").count(), 1);
    assert_eq!(lines[0].matches("(ListLink").count(), depth);
    assert_eq!(lines[2], "()\n");
}
