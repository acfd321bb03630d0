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
    assert!(rest.contains("stopped with 3 atoms, its store lmdb://") && rest.contains(" flushed and closed"), "{rest}");
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
fn a_token_file_gives_each_token_its_role() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    std::fs::write(&file, "# team\nw-secret write\nr-secret read\n").unwrap();
    let (_child, port, _err) = serve(&["--token", "cli-secret", "--token-file", file.to_str().unwrap()]);
    let ask = |token: &str, cmd: &str| {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(format!("{token}\nsexpr\n{cmd}\n").as_bytes()).unwrap();
        let mut rd = BufReader::new(s);
        let mut line = String::new();
        // The prompt after the token, then the reply.
        while !line.ends_with(")\n") && !line.ends_with("error: this server wants its token as the first line; closing the connection\n") {
            let mut b = [0u8; 1];
            if rd.read(&mut b).unwrap() == 0 {
                break;
            }
            line.push(b[0] as char);
        }
        line.trim_start_matches("opencog> ").to_string()
    };
    assert_eq!(ask("w-secret", "(Concept \"a\")"), "(ConceptNode \"a\")\n");
    assert_eq!(ask("cli-secret", "(Concept \"b\")"), "(ConceptNode \"b\")\n", "--token's is a write token");
    assert!(ask("r-secret", "(Concept \"c\")").contains("may only read"));
    assert_eq!(ask("r-secret", "(cog-node 'ConceptNode \"a\")"), "(ConceptNode \"a\")\n");
    assert!(ask("nope", "(ping)").contains("wants its token"));

    // A bad file stops the start, naming the file and the line.
    std::fs::write(&file, "w-secret owner\n").unwrap();
    let out = atomweave().args(["serve", "--port", "0", "--no-http", "--token-file", file.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("tokens: line 1: the role is `read` or `write`, not `owner`"), "{err}");
}

#[test]
fn tls_files_that_cannot_be_read_stop_the_start_naming_them() {
    let out = atomweave().args(["serve", "--port", "0", "--no-http", "--tls-cert", "/nonexistent/cert.pem"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--tls-key"), "a certificate needs its key");
    let out =
        atomweave().args(["serve", "--port", "0", "--no-http", "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("/nonexistent/cert.pem"), "{err}");
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

/// A connection in the sexpr shell of the server at `port`.
struct Sexpr {
    rd: BufReader<TcpStream>,
    wr: TcpStream,
}

impl Sexpr {
    fn open(port: u16) -> Sexpr {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut rd = BufReader::new(s.try_clone().unwrap());
        let mut wr = s;
        wr.write_all(b"sexpr\n").unwrap();
        let mut prompt = [0u8; 9];
        rd.read_exact(&mut prompt).unwrap();
        assert_eq!(&prompt, b"opencog> ");
        Sexpr { rd, wr }
    }

    /// Sends the commands in one write and returns their reply lines.
    fn ask(&mut self, cmds: &[String]) -> Vec<String> {
        let text: String = cmds.iter().map(|c| format!("{c}\n")).collect();
        self.wr.write_all(text.as_bytes()).unwrap();
        (0..cmds.len())
            .map(|_| {
                let mut l = String::new();
                assert!(self.rd.read_line(&mut l).unwrap() > 0, "closed");
                l.trim_end().to_string()
            })
            .collect()
    }
}

fn sigkill(child: &mut Served) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The atoms `dump --from url` prints, one a line.
fn dumped(url: &str) -> String {
    let out = atomweave().args(["dump", "--from", url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_value_keyed_by_its_own_atom_crashes_nothing_and_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/kb.scm", dir.path().display());
    let (mut child, port, _err) = serve(&["--store", &url]);
    let mut c = Sexpr::open(port);
    let replies = c.ask(&[
        r#"(cog-set-value! (Predicate "k") (Predicate "k") (FloatValue 1))"#.into(),
        r#"(cog-set-value! (Concept "a") (List (Concept "a")) (FloatValue 2))"#.into(),
        r#"(cog-keys->alist (Predicate "k"))"#.into(),
        r#"(Predicate "k")"#.into(),
    ]);
    assert_eq!(replies[..2], ["()", "()"]);
    assert_eq!(replies[2], r#"(((PredicateNode "k") . (FloatValue 1)))"#);
    assert_eq!(replies[3], r#"(PredicateNode "k")"#);
    // Acknowledged, so in the file whatever happens to the server now.
    sigkill(&mut child);
    let text = dumped(&url);
    assert!(text.contains(r#"(PredicateNode "k" (alist (cons (PredicateNode "k")(FloatValue 1))))"#), "{text}");
    assert!(text.contains(r#"(ConceptNode "a" (alist (cons (ListLink (ConceptNode "a"))(FloatValue 2))))"#), "{text}");
}

/// Makes `n` acknowledged writes over four connections in pipelined
/// batches, SIGKILLs the server, and checks the store holds them all.
fn acknowledged_writes_survive_sigkill(url: &str, n: usize) {
    let (mut child, port, _err) = serve(&["--store", url]);
    let per = n / 4;
    let clients: Vec<_> = (0..4)
        .map(|c| {
            std::thread::spawn(move || {
                let mut s = Sexpr::open(port);
                for batch in (0..per).collect::<Vec<_>>().chunks(50) {
                    let cmds: Vec<String> = batch.iter().map(|i| format!(r#"(cog-set-tv! (Concept "c{c}-{i}") (stv 0.5 0.25))"#)).collect();
                    assert!(s.ask(&cmds).iter().all(|r| r == "()"));
                }
            })
        })
        .collect();
    clients.into_iter().for_each(|t| t.join().unwrap());
    sigkill(&mut child);
    let text = dumped(url);
    let stored = text.lines().filter(|l| l.starts_with(r#"(ConceptNode "c"#) && l.contains("(SimpleTruthValue 0.5 0.25)")).count();
    assert_eq!(stored, per * 4, "acknowledged writes lost");
}

#[test]
fn acknowledged_writes_survive_sigkill_in_lmdb() {
    let dir = tempfile::tempdir().unwrap();
    acknowledged_writes_survive_sigkill(&format!("lmdb://{}", dir.path().display()), 1000);
}

#[test]
fn acknowledged_writes_survive_sigkill_in_postgres() {
    let pg = atomweave_store::pg::scratch_server::ScratchServer::start(true).unwrap();
    // The server opens the store inside its runtime: this start panicked.
    acknowledged_writes_survive_sigkill(&pg.url(), 1000);
}

#[test]
fn acknowledged_writes_survive_sigkill_in_a_redis_cluster() {
    let cluster = atomweave_store::redis::scratch::Scratch::cluster(3, 1).unwrap();
    acknowledged_writes_survive_sigkill(&cluster.url(""), 1000);
}

/// Whole lines read until they hold `want`; the server closing first fails.
fn lines_until(rd: &mut impl BufRead, want: &str) -> String {
    let mut got = String::new();
    while !got.contains(want) {
        let mut l = String::new();
        assert!(rd.read_line(&mut l).unwrap() > 0, "closed before {want:?}: {got}");
        got.push_str(&l);
    }
    got
}

/// Sends Scheme to the server's `scm` shell and returns what it printed up
/// to `want`.
fn scm(port: u16, code: &str, want: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(format!("scm hush\n{code}\n").as_bytes()).unwrap();
    lines_until(&mut BufReader::new(s), want)
}

#[test]
fn two_servers_on_one_redis_cluster_see_each_others_writes() {
    let cluster = atomweave_store::redis::scratch::Scratch::cluster(3, 1).unwrap();
    let url = cluster.url("");
    let (mut a, pa, _ea) = serve(&["--store", &url]);
    let (mut b, pb, _eb) = serve(&["--store", &url]);
    for (from, to, name) in [(pa, pb, "from a"), (pb, pa, "from b")] {
        let mut c = Sexpr::open(from);
        assert_eq!(c.ask(&[format!(r#"(cog-set-tv! (Concept "{name}") (stv 0.5 0.25))"#)]), ["()"]);
        let got = scm(to, &format!(r#"(fetch-atom (Concept "{name}")) (display (cog-tv (Concept "{name}"))) (display "end") (newline)"#), "end");
        assert!(got.contains("0.5") && got.contains("0.25"), "{name}: {got}");
    }
    sigkill(&mut a);
    sigkill(&mut b);
}

#[test]
fn scm_callbacks_of_a_query_are_stopped_at_the_time_limit_and_leave_the_shell_sound() {
    // The limit's interrupt lands anywhere: in a callback's body, on its
    // way in or out through Rust's frames, or in the query between them.
    let (mut child, port, _err) = serve(&["--scm-timeout", "1"]);
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut rd = BufReader::new(s.try_clone().unwrap());
    let mut until = |s: &mut TcpStream, send: &str, want: &str| -> String {
        s.write_all(send.as_bytes()).unwrap();
        lines_until(&mut rd, want)
    };
    until(&mut s, "scm hush\n(define (slow x) (let loop ((i 0)) (if (< i 2000) (loop (+ i 1)))) (stv 1 1))\n(+ 1 1)\n", "2\n");
    until(&mut s, "(for-each (lambda (i) (Member (Concept (number->string i)) (Concept \"set\"))) (iota 200))\n(+ 2 2)\n", "4\n");
    let query =
        "(cog-execute! (Get (And (Member (Variable \"$x\") (Concept \"set\")) (Evaluation (GroundedPredicate \"scm:slow\") (List (Variable \"$x\"))))))";
    for round in 0..5 {
        // Queries over and over, until the limit stops one.
        let got = until(&mut s, &format!("(let loop () {query} (loop))\n(+ 3 {round})\n"), &format!("{}\n", 3 + round));
        assert!(got.contains("ERROR:") && got.contains("1 s"), "{got}");
    }
    // A command is stopped only once it has run its time: on a loaded
    // machine even this one may, and is then asked again.
    let mut got = String::new();
    for _ in 0..3 {
        let began = std::time::Instant::now();
        got = until(&mut s, "(cog-count-atoms 'ConceptNode)\n(equal? (cog-atomspace) (cog-atomspace (Concept \"set\")))\n", "#");
        if !got.contains("ERROR:") {
            break;
        }
        assert!(began.elapsed() >= Duration::from_secs(1), "stopped before its time: {got}");
    }
    assert!(got.contains("201\n") && got.contains("#t"), "the server's space is current, with its atoms alone: {got}");
    sigkill(&mut child);
}

#[test]
fn runaway_scheme_is_stopped_by_the_time_limit_and_by_shutdown() {
    let (mut child, port, mut err) = serve(&["--scm-timeout", "1"]);
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let start = std::time::Instant::now();
    s.write_all(b"scm hush\n(let loop () (loop))\n(+ 2 2)\n").unwrap();
    let mut rd = BufReader::new(s.try_clone().unwrap());
    let mut got = lines_until(&mut rd, "4\n");
    assert!(got.contains("ERROR:") && got.contains("ran longer than the 1 s"), "{got}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    // A query runs in Rust, out of reach of Guile's interrupts: it watches
    // the same deadline (12! permutations, each rejected, take minutes).
    let members: String = (0..12).map(|i| format!(r#"(Concept "m{i}")"#)).collect();
    let vars: String = (0..12).map(|i| format!(r#"(Variable "$v{i}")"#)).collect();
    let start = std::time::Instant::now();
    s.write_all(format!("(Set {members})\n(cog-execute! (Get (And (Set {vars}) (Equal (Variable \"$v0\") (Concept \"none\")))))\n(+ 3 3)\n").as_bytes())
        .unwrap();
    got.clear();
    while !got.contains("6\n") {
        let mut l = String::new();
        if rd.read_line(&mut l).unwrap() == 0 {
            sigkill(&mut child);
            let mut e = String::new();
            let _ = err.read_to_string(&mut e);
            panic!("closed: {got}\nstderr: {}", &e[..e.len().min(6000)]);
        }
        got.push_str(&l);
    }
    assert!(got.contains("ERROR:") && got.contains("1 s"), "{got}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    drop((rd, s));
    sigkill(&mut child);
    let _ = err.read_to_string(&mut String::new());

    // No limit: shutdown stops the evaluations (one in Scheme, one in a
    // query) and the process ends.
    let (mut child, port, _err) = serve(&["--scm-timeout", "0"]);
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"scm hush\n(let loop () (loop))\n").unwrap();
    let mut q = TcpStream::connect(("127.0.0.1", port)).unwrap();
    q.write_all(format!("scm hush\n(Set {members})\n(cog-execute! (Get (And (Set {vars}) (Equal (Variable \"$v0\") (Concept \"none\")))))\n").as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let mut t = TcpStream::connect(("127.0.0.1", port)).unwrap();
    t.write_all(b"shutdown\n").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "the server did not stop while Scheme ran");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_empty_token_is_refused() {
    for (args, env) in [(vec!["--token", ""], None), (vec!["--bind", "0.0.0.0"], Some("")), (vec!["--token", "  "], None)] {
        let mut cmd = atomweave();
        cmd.args(["serve", "--port", "0", "--no-http"]).args(&args);
        if let Some(v) = env {
            cmd.env("ATOMWEAVE_TOKEN", v);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("empty --token"), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn connections_are_capped_timed_out_and_their_input_budgeted() {
    let (_child, port, _err) = serve(&["--max-connections", "3", "--idle-timeout", "2", "--max-buffered", "1"]);
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut fourth = TcpStream::connect(("127.0.0.1", port)).unwrap();
    fourth.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut refusal = String::new();
    fourth.read_to_string(&mut refusal).unwrap();
    assert!(refusal.contains("most connections (3)"), "{refusal:?}");
    // Silent for longer than the idle limit: closed, with a word why.
    let mut idle = BufReader::new(held.into_iter().next().unwrap());
    idle.get_ref().set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = String::new();
    idle.read_to_string(&mut rest).unwrap();
    assert!(rest.ends_with("nothing was sent for too long; closing the connection\n"), "{rest:?}");
    drop(idle);
    std::thread::sleep(Duration::from_millis(200));
    // Two unfinished lines of 700 KiB: the second goes over the 1 MiB budget.
    let partial = vec![b'x'; 700 << 10];
    let mut a = TcpStream::connect(("127.0.0.1", port)).unwrap();
    a.write_all(&partial).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut b = TcpStream::connect(("127.0.0.1", port)).unwrap();
    b.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    b.write_all(&partial).unwrap();
    let mut why = String::new();
    let _ = b.read_to_string(&mut why);
    assert!(why.contains("too much unfinished input"), "{why:?}");
    assert!(stats(port).contains("1 closed over the input budget"));
    drop(a);
}

#[test]
fn the_scm_shell_writes_to_the_servers_store_with_store_atom() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().display());
    let (mut child, port, _err) = serve(&["--store", &url]);
    scm(port, r#"(store-atom (Concept "from scheme" (stv 0.5 0.5)))"#, "from scheme");
    sigkill(&mut child);
    assert!(dumped(&url).contains("(ConceptNode \"from scheme\" (alist (cons (PredicateNode \"*-TruthValueKey-*\")(SimpleTruthValue 0.5 0.5))))"));
}

/// A link whose members share members prints each shared member at every
/// place: rewriting (List $x ×64) four times over makes an atom of 64^4
/// leaves from a few short commands. Printing it is refused with an error
/// (a reply past 256 MiB, in the sexpr shell and the json shell alike),
/// not built until memory runs out; the server goes on answering.
#[test]
fn atoms_too_large_to_print_are_refused_not_printed() {
    let (_child, port, _err) = serve(&[]);
    let mut c = Sexpr::open(port);
    let x64 = r#"(Variable "$x") "#.repeat(64);
    let step = |k: usize| {
        format!(
            r#"(cog-execute-cache! (Bind (Variable "$x") (Present (Evaluation (Predicate "L{k}") (Variable "$x"))) (Evaluation (Predicate "L{}") (List {x64}))) (Predicate "result"))"#,
            k + 1
        )
    };
    assert_eq!(c.ask(&[r#"(Evaluation (Predicate "L0") (Concept "a"))"#.into()])[0], r#"(EvaluationLink (PredicateNode "L0")(ConceptNode "a"))"#);
    for k in 0..3 {
        let reply = &c.ask(&[step(k)])[0];
        assert!(reply.starts_with("(SetLink (EvaluationLink"), "step {k}: {}", &reply[..reply.len().min(200)]);
    }
    for k in 3..5 {
        let reply = &c.ask(&[step(k)])[0];
        assert!(reply.starts_with("(error ") && reply.contains("longer than 256 MiB"), "step {k}: {}", &reply[..reply.len().min(200)]);
    }
    let replies = c.ask(&["(cog-get-atoms 'EvaluationLink)".into(), "(ping)".into()]);
    assert!(replies[0].contains("longer than 256 MiB"), "{}", &replies[0][..replies[0].len().min(200)]);
    assert_eq!(replies[1], "()");

    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut rd = BufReader::new(s.try_clone().unwrap());
    let mut wr = s;
    wr.write_all(b"json\nAtomSpace.getAtoms(\"EvaluationLink\")\n").unwrap();
    let mut reply = String::new();
    while !reply.contains("longer than 256 MiB") {
        reply.clear();
        assert!(rd.read_line(&mut reply).unwrap() > 0, "closed");
    }
}

/// A query that would run for minutes (12! permutations of an unordered
/// link, each rejected) stops at `--query-timeout` with an error reply;
/// the connection and the server go on.
#[test]
fn runaway_queries_stop_at_the_query_timeout() {
    let (_child, port, _err) = serve(&["--query-timeout", "1"]);
    let mut c = Sexpr::open(port);
    let members: String = (0..12).map(|i| format!(r#"(Concept "m{i}")"#)).collect();
    let vars: String = (0..12).map(|i| format!(r#"(Variable "$v{i}")"#)).collect();
    let start = std::time::Instant::now();
    let replies = c.ask(&[
        format!("(Set {members})"),
        format!(r#"(cog-execute-cache! (Get (And (Set {vars}) (Equal (Variable "$v0") (Concept "none")))) (Predicate "r"))"#),
        "(ping)".into(),
    ]);
    assert!(replies[1].starts_with("(error ") && replies[1].contains("time limit"), "{}", replies[1]);
    assert_eq!(replies[2], "()");
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());

    // No limit: shutdown stops the query and the process ends.
    let (mut child, port, _err) = serve(&["--query-timeout", "0"]);
    let mut c = Sexpr::open(port);
    c.ask(&[format!("(Set {members})")]);
    c.wr.write_all(format!("(cog-execute-cache! (Get (And (Set {vars}) (Equal (Variable \"$v0\") (Concept \"none\")))) (Predicate \"r\"))\n").as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    TcpStream::connect(("127.0.0.1", port)).unwrap().write_all(b"shutdown\n").unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        assert!(std::time::Instant::now() < deadline, "the server did not stop while a query ran");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_file_store_that_holds_scheme_is_loaded_as_guile_would() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kb.scm");
    std::fs::copy(format!("{}/../../tests/corpus/definitions.scm", env!("CARGO_MANIFEST_DIR")), &file).unwrap();
    let (_child, port, _err) = serve(&["--store", &format!("file://{}", file.display())]);
    let mut c = Sexpr::open(port);
    let replies = c.ask(&[r#"(cog-link 'SimilarityLink (ConceptNode "cat") (ConceptNode "dog"))"#.into(), r#"(cog-node 'ConceptNode "last")"#.into()]);
    assert_eq!(replies, [r#"(SimilarityLink (ConceptNode "cat")(ConceptNode "dog"))"#, r#"(ConceptNode "last")"#]);
}
