//! `atomweave shell-bench`: the seed's CogServer shell table
//! (`cogserver-shell-perf.md`), against a running server or one started
//! here, plus pipelined throughput and many concurrent clients.
//!
//! Each row runs its command with a connection per command, as the seed's
//! netcat did (connect, wait for the prompt, send, wait for the reply,
//! close), and on one persistent connection.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

const PROMPT: &[u8] = b"opencog> ";

#[derive(clap::Args)]
pub struct ShellBenchArgs {
    /// Server to measure; without --port, one is started in this process.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Its telnet port.
    #[arg(long)]
    port: Option<u16>,
    /// Repetitions per row (connection-per-command rows run a tenth as many, at least 50).
    #[arg(short = 'n', long, default_value_t = 5000)]
    reps: usize,
    /// Concurrent clients for the last row.
    #[arg(short = 'c', long, default_value_t = 100)]
    clients: usize,
    /// Atoms sent in the pipelined row.
    #[arg(long, default_value_t = 200_000)]
    pipelined: usize,
    /// The server's token, if it wants one.
    #[arg(long)]
    token: Option<String>,
}

/// One connection to the server, in the command shell or the `sexpr` shell.
struct Conn {
    rd: BufReader<TcpStream>,
    wr: TcpStream,
}

impl Conn {
    fn open(addr: SocketAddr, token: Option<&str>) -> std::io::Result<Conn> {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut c = Conn { rd: BufReader::new(s.try_clone()?), wr: s };
        if let Some(t) = token {
            c.wr.write_all(format!("{t}\n").as_bytes())?;
        }
        c.until_prompt()?;
        Ok(c)
    }

    fn until_prompt(&mut self) -> std::io::Result<()> {
        let mut seen: Vec<u8> = Vec::new();
        while !seen.ends_with(PROMPT) {
            let buf = self.rd.fill_buf()?;
            if buf.is_empty() {
                return Err(std::io::Error::other("the server closed the connection"));
            }
            // Take up to and including a prompt's last byte, no further.
            let take = buf.iter().position(|&b| b == b' ').map_or(buf.len(), |i| i + 1);
            seen.extend_from_slice(&buf[..take]);
            self.rd.consume(take);
        }
        Ok(())
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut s = String::new();
        if self.rd.read_line(&mut s)? == 0 {
            return Err(std::io::Error::other("the server closed the connection"));
        }
        Ok(s)
    }

    /// A command-shell command, answered up to the next prompt.
    fn shell(&mut self, cmd: &str) -> std::io::Result<()> {
        self.wr.write_all(cmd.as_bytes())?;
        self.until_prompt()
    }

    /// A command of a shell that answers with one line; a reply starting
    /// with `error` (`(error ...` from sexpr, `ERROR:` from scm) is an error.
    fn ask(&mut self, cmd: &str, error: &str) -> std::io::Result<()> {
        self.wr.write_all(cmd.as_bytes())?;
        let reply = self.line()?;
        if reply.starts_with(error) {
            return Err(std::io::Error::other(reply.trim_end().to_string()));
        }
        Ok(())
    }

    fn sexpr(&mut self, cmd: &str) -> std::io::Result<()> {
        self.ask(cmd, "(error")
    }

    fn scm(&mut self, cmd: &str) -> std::io::Result<()> {
        self.ask(cmd, "ERROR:")
    }
}

/// Milliseconds per call: the mean (the seed's figure) and the median.
#[derive(Copy, Clone)]
struct Timing {
    mean: f64,
    median: f64,
}

/// Times `f` run `n` times, call by call.
fn time_calls(n: usize, mut f: impl FnMut(usize) -> std::io::Result<()>) -> Result<Timing, String> {
    let mut each = Vec::with_capacity(n);
    let start = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        f(i).map_err(|e| e.to_string())?;
        each.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mean = start.elapsed().as_secs_f64() * 1e3 / n as f64;
    each.sort_by(f64::total_cmp);
    Ok(Timing { mean, median: each[n / 2] })
}

struct Row {
    name: &'static str,
    per_connection: Option<Timing>,
    persistent: Option<Timing>,
    note: &'static str,
}

impl Row {
    /// A row timed both ways: `per_connection` on a fresh connection per
    /// call, then `persistent` on one kept open.
    fn timed(
        b: &Bench<'_>,
        name: &'static str,
        note: &'static str,
        per_connection: impl FnMut(usize) -> std::io::Result<()>,
        persistent: impl FnMut(usize) -> std::io::Result<()>,
    ) -> Result<Row, String> {
        Ok(Row { name, per_connection: Some(time_calls(b.n_conn, per_connection)?), persistent: Some(time_calls(b.n, persistent)?), note })
    }
}

/// The server measured and how: its address, its token and the calls per row.
struct Bench<'a> {
    addr: SocketAddr,
    token: Option<&'a str>,
    /// Calls per persistent-connection row.
    n: usize,
    /// Calls per connection-per-command row.
    n_conn: usize,
}

impl Bench<'_> {
    /// A fresh connection, in the command shell.
    fn open(&self) -> std::io::Result<Conn> {
        Conn::open(self.addr, self.token)
    }

    /// A fresh connection inside a shell (`sexpr`, `scm hush`).
    fn open_in(&self, shell: &str) -> std::io::Result<Conn> {
        let mut c = self.open()?;
        c.wr.write_all(format!("{shell}\n").as_bytes())?;
        Ok(c)
    }
}

pub fn run(a: ShellBenchArgs) -> Result<(), String> {
    let (addr, _own) = server(&a)?;
    let n = a.reps.max(1);
    let b = Bench { addr, token: a.token.as_deref(), n, n_conn: (n / 10).max(50) };
    println!("atomweave shell-bench: server {addr}; {n} calls per persistent row, {} per connection-per-command row", b.n_conn);
    // The command shell's and the sexpr shell's persistent connections
    // stay open to the end, as they did while the table's rows ran.
    let mut c = b.open().map_err(|e| format!("{addr}: {e}"))?;
    let mut rows = command_shell_rows(&b, &mut c)?;
    let first_scheme = first_scheme_call(&b)?;
    rows.extend(scheme_rows(&b)?);
    let mut s = b.open_in("sexpr").map_err(|e| e.to_string())?;
    rows.extend(sexpr_rows(&b, &mut s)?);
    print_table(&rows);
    println!();
    println!("  first scheme call          {first_scheme:.1} ms: a new connection's (+ 2 2), which starts Guile in a new server");
    let mut p = b.open_in("sexpr").map_err(|e| e.to_string())?;
    pipelined(&mut p, a.pipelined)?;
    let clients = a.clients.max(1);
    let errors = concurrent_clients(&b, clients)?;
    println!();
    println!("  seed (upstream CogServer, 2019): 6.281 ms trivial shell, 100.3 ms help, 31.1 ms trivial scheme, 32.4 ms create same atom, 6.1 ms no-wait");
    // Read everything the server sent, so it sees clean closes.
    let _ = p.wr.shutdown(std::net::Shutdown::Write);
    let _ = p.rd.read_to_end(&mut Vec::new());
    if errors > 0 {
        return Err(format!("{errors} calls failed under {clients} concurrent clients"));
    }
    Ok(())
}

/// The thread of a server started in this process.
type OwnServer = std::thread::JoinHandle<Result<(), String>>;

/// The server to measure: the one named, or one of our own, started in
/// this process (its thread, kept while the bench runs).
fn server(a: &ShellBenchArgs) -> Result<(SocketAddr, Option<OwnServer>), String> {
    if let Some(port) = a.port {
        let addr = (a.host.as_str(), port).to_socket_addrs().map_err(|e| format!("{}:{port}: {e}", a.host))?.next().ok_or("no address")?;
        return Ok((addr, None));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let th = std::thread::spawn(move || {
        let config = atomweave_server::Config { port: 0, http_port: None, ..Default::default() };
        atomweave_server::serve_blocking(config, |addr, _| tx.send(addr).expect("the bench waits")).map(|_| ()).map_err(|e| e.to_string())
    });
    let addr = rx.recv().map_err(|_| "the in-process server did not start".to_string())?;
    Ok((addr, Some(th)))
}

/// The command shell's rows: an empty line and `help`, persistent on `c`.
fn command_shell_rows(b: &Bench<'_>, c: &mut Conn) -> Result<Vec<Row>, String> {
    Ok(vec![
        Row::timed(b, "trivial shell command", "an empty line: the prompt comes back", |_| b.open()?.shell("\n"), |_| c.shell("\n"))?,
        Row::timed(b, "shell help command", "", |_| b.open()?.shell("help\n"), |_| c.shell("help\n"))?,
    ])
}

/// Milliseconds to a new connection's first `scm` answer: in a server
/// that has not run Scheme yet, Guile's start (and its modules' load).
fn first_scheme_call(b: &Bench<'_>) -> Result<f64, String> {
    let t = Instant::now();
    b.open_in("scm hush").and_then(|mut g| g.scm("(+ 2 2)\n")).map_err(|e| e.to_string())?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// The `scm` shell's rows. Its persistent connection is closed after
/// them: at most two connections stay open while persistent rows run (the
/// server polls for the next command only then).
fn scheme_rows(b: &Bench<'_>) -> Result<Vec<Row>, String> {
    let mut g = b.open_in("scm hush").map_err(|e| e.to_string())?;
    let trivial = Row::timed(b, "trivial scheme", "scm shell: (+ 2 2)", |_| b.open_in("scm hush")?.scm("(+ 2 2)\n"), |_| g.scm("(+ 2 2)\n"))?;
    let set_tv = |name: &str, i: usize| format!("(cog-set-tv! (Concept \"{name}{i}\") (stv 0.5 0.5))\n");
    let non_trivial = Row::timed(
        b,
        "non-trivial scheme",
        "scm shell: make an atom, set its truth value",
        |i| b.open_in("scm hush")?.scm(&set_tv("g", i)),
        |i| g.scm(&set_tv("gp", i)),
    )?;
    Ok(vec![trivial, non_trivial])
}

/// The `sexpr` shell's rows, persistent on `s`.
fn sexpr_rows(b: &Bench<'_>, s: &mut Conn) -> Result<Vec<Row>, String> {
    let concept = |name: &str| format!("(ConceptNode \"{name}\")\n");
    let set_tv = |name: &str, i: usize| format!("(cog-set-tv! (ConceptNode \"{name}{i}\") (stv 0.5 0.5))\n");
    let mut rows = vec![
        Row::timed(b, "create same atom", "sexpr shell", |_| b.open_in("sexpr")?.sexpr(&concept("foo")), |_| s.sexpr(&concept("foo")))?,
        Row::timed(
            b,
            "create various atoms",
            "sexpr shell",
            |i| b.open_in("sexpr")?.sexpr(&concept(&format!("c{i}"))),
            |i| s.sexpr(&concept(&format!("p{i}"))),
        )?,
    ];
    rows.push(no_wait_row(b, s)?);
    rows.push(Row::timed(
        b,
        "socket-wait response",
        "set a truth value, wait for the reply",
        |i| b.open_in("sexpr")?.sexpr(&set_tv("sw", i)),
        |i| s.sexpr(&set_tv("swp", i)),
    )?);
    Ok(rows)
}

/// Atoms sent without waiting for each reply. Per connection, as the
/// seed's: write and close. Persistent: write 512 at a time, then read
/// their replies.
fn no_wait_row(b: &Bench<'_>, s: &mut Conn) -> Result<Row, String> {
    let per_connection = time_calls(b.n_conn, |i| {
        let mut c = TcpStream::connect(b.addr)?;
        if let Some(t) = b.token {
            c.write_all(format!("{t}\n").as_bytes())?;
        }
        c.write_all(format!("sexpr\n(ConceptNode \"nw{i}\")\n").as_bytes())
    })?;
    let start = Instant::now();
    // In chunks, so the replies in flight always fit the socket buffers.
    for chunk in (0..b.n).collect::<Vec<_>>().chunks(512) {
        let text: String = chunk.iter().map(|i| format!("(ConceptNode \"nwp{i}\")\n")).collect();
        s.wr.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        for _ in chunk {
            s.line().map_err(|e| e.to_string())?;
        }
    }
    let per_call = start.elapsed().as_secs_f64() * 1e3 / b.n as f64;
    Ok(Row {
        name: "no-wait socket atoms",
        per_connection: Some(per_connection),
        persistent: Some(Timing { mean: per_call, median: per_call }),
        note: "replies not awaited per call",
    })
}

fn print_table(rows: &[Row]) {
    println!();
    println!("  {:<24} {:>32}   {:>32}", "", "connection per command", "persistent connection");
    println!("  {:<24} {:>10} {:>10} {:>10}   {:>10} {:>10} {:>10}", "test", "ms/call", "median", "calls/s", "ms/call", "median", "calls/s");
    let cell =
        |t: Option<Timing>| t.map_or(format!("{:>10} {:>10} {:>10}", "-", "-", "-"), |t| format!("{:>10.4} {:>10.4} {:>10.0}", t.mean, t.median, 1e3 / t.mean));
    for r in rows {
        println!("  {:<24} {}   {}  {}", r.name, cell(r.per_connection), cell(r.persistent), r.note);
    }
}

/// Pipelined creation of `total` distinct atoms on one connection: a
/// thread reads the replies while this one writes.
fn pipelined(p: &mut Conn, total: usize) -> Result<(), String> {
    let mut reader = BufReader::with_capacity(1 << 16, p.wr.try_clone().map_err(|e| e.to_string())?);
    let reading = std::thread::spawn(move || -> std::io::Result<usize> {
        let mut errors = 0;
        let mut line = String::new();
        for _ in 0..total {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Err(std::io::Error::other("closed"));
            }
            errors += usize::from(line.starts_with("(error"));
        }
        Ok(errors)
    });
    let start = Instant::now();
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut p.wr);
        for i in 0..total {
            writeln!(w, "(ConceptNode \"pipelined {i}\")").map_err(|e| e.to_string())?;
        }
        w.flush().map_err(|e| e.to_string())?;
    }
    let errors = reading.join().map_err(|_| "reader panicked")?.map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    println!();
    println!("  pipelined atom creation   {total} atoms in {secs:.3} s: {:.0} atoms/s, {errors} errors", total as f64 / secs);
    Ok(())
}

/// Many clients at once, each on its own connection, overlapping atoms:
/// throughput and latencies printed; how many calls failed.
fn concurrent_clients(b: &Bench<'_>, clients: usize) -> Result<usize, String> {
    let per = (b.n / 10).max(100);
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|k| {
            let (addr, token) = (b.addr, b.token.map(str::to_string));
            std::thread::spawn(move || client(addr, token.as_deref(), k, per))
        })
        .collect();
    let mut lat = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (l, e) = w.join().map_err(|_| "a client thread panicked")?;
        lat.extend(l);
        errors += e;
    }
    let secs = start.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
    println!(
        "  {clients} concurrent clients    {} calls in {secs:.3} s: {:.0} calls/s, median {:.3} ms, p99 {:.3} ms, {errors} errors",
        lat.len(),
        lat.len() as f64 / secs,
        pct(0.5),
        pct(0.99)
    );
    Ok(errors)
}

/// Client `k` of the concurrent row: `per` calls in the `sexpr` shell;
/// their latencies in ms and how many failed (all when it cannot connect).
fn client(addr: SocketAddr, token: Option<&str>, k: usize, per: usize) -> (Vec<f64>, usize) {
    let mut lat = Vec::with_capacity(per);
    let mut c = match Conn::open(addr, token).and_then(|mut c| c.wr.write_all(b"sexpr\n").map(|_| c)) {
        Ok(c) => c,
        Err(_) => return (lat, per),
    };
    let mut errors = 0;
    for i in 0..per {
        let t = Instant::now();
        let cmd = format!("(ListLink (ConceptNode \"client {}\")(ConceptNode \"shared {}\"))\n", k % 10, i % 50);
        match c.sexpr(&cmd) {
            Ok(()) => lat.push(t.elapsed().as_secs_f64() * 1e3),
            Err(_) => errors += 1,
        }
    }
    (lat, errors)
}
