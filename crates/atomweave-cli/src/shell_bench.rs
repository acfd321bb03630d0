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

pub fn run(a: ShellBenchArgs) -> Result<(), String> {
    // A server of our own unless one was named.
    let (addr, _own) = match a.port {
        Some(port) => {
            let addr = (a.host.as_str(), port).to_socket_addrs().map_err(|e| format!("{}:{port}: {e}", a.host))?.next().ok_or("no address")?;
            (addr, None)
        }
        None => {
            let (tx, rx) = std::sync::mpsc::channel();
            let th = std::thread::spawn(move || {
                let config = atomweave_server::Config { port: 0, http_port: None, ..Default::default() };
                atomweave_server::serve_blocking(config, |addr, _| tx.send(addr).expect("the bench waits")).map(|_| ()).map_err(|e| e.to_string())
            });
            let addr = rx.recv().map_err(|_| "the in-process server did not start".to_string())?;
            (addr, Some(th))
        }
    };
    let token = a.token.as_deref();
    let n = a.reps.max(1);
    let n_conn = (n / 10).max(50);
    let open = || Conn::open(addr, token);
    // A fresh connection inside a shell (`sexpr`, `scm hush`).
    let open_in = |shell: &str| -> std::io::Result<Conn> {
        let mut c = open()?;
        c.wr.write_all(format!("{shell}\n").as_bytes())?;
        Ok(c)
    };
    println!("atomweave shell-bench: server {addr}; {n} calls per persistent row, {n_conn} per connection-per-command row");
    let mut rows = Vec::new();

    let mut c = open().map_err(|e| format!("{addr}: {e}"))?;
    rows.push(Row {
        name: "trivial shell command",
        per_connection: Some(time_calls(n_conn, |_| open()?.shell("\n"))?),
        persistent: Some(time_calls(n, |_| c.shell("\n"))?),
        note: "an empty line: the prompt comes back",
    });
    rows.push(Row {
        name: "shell help command",
        per_connection: Some(time_calls(n_conn, |_| open()?.shell("help\n"))?),
        persistent: Some(time_calls(n, |_| c.shell("help\n"))?),
        note: "",
    });
    let mut g = open_in("scm hush").map_err(|e| e.to_string())?;
    rows.push(Row {
        name: "trivial scheme",
        per_connection: Some(time_calls(n_conn, |_| open_in("scm hush")?.scm("(+ 2 2)\n"))?),
        persistent: Some(time_calls(n, |_| g.scm("(+ 2 2)\n"))?),
        note: "scm shell: (+ 2 2)",
    });
    rows.push(Row {
        name: "non-trivial scheme",
        per_connection: Some(time_calls(n_conn, |i| open_in("scm hush")?.scm(&format!("(cog-set-tv! (Concept \"g{i}\") (stv 0.5 0.5))\n")))?),
        persistent: Some(time_calls(n, |i| g.scm(&format!("(cog-set-tv! (Concept \"gp{i}\") (stv 0.5 0.5))\n")))?),
        note: "scm shell: make an atom, set its truth value",
    });
    // At most two connections stay open while persistent rows run (the
    // server polls for the next command only then).
    drop(g);
    let mut s = open_in("sexpr").map_err(|e| e.to_string())?;
    rows.push(Row {
        name: "create same atom",
        per_connection: Some(time_calls(n_conn, |_| open_in("sexpr")?.sexpr("(ConceptNode \"foo\")\n"))?),
        persistent: Some(time_calls(n, |_| s.sexpr("(ConceptNode \"foo\")\n"))?),
        note: "sexpr shell",
    });
    rows.push(Row {
        name: "create various atoms",
        per_connection: Some(time_calls(n_conn, |i| open_in("sexpr")?.sexpr(&format!("(ConceptNode \"c{i}\")\n")))?),
        persistent: Some(time_calls(n, |i| s.sexpr(&format!("(ConceptNode \"p{i}\")\n")))?),
        note: "sexpr shell",
    });
    // As the seed's: write and close without waiting. Persistent: write
    // 512 at a time, then read their replies.
    let no_wait_conn = time_calls(n_conn, |i| {
        let mut c = TcpStream::connect(addr)?;
        if let Some(t) = token {
            c.write_all(format!("{t}\n").as_bytes())?;
        }
        c.write_all(format!("sexpr\n(ConceptNode \"nw{i}\")\n").as_bytes())
    })?;
    let start = Instant::now();
    // In chunks, so the replies in flight always fit the socket buffers.
    for chunk in (0..n).collect::<Vec<_>>().chunks(512) {
        let text: String = chunk.iter().map(|i| format!("(ConceptNode \"nwp{i}\")\n")).collect();
        s.wr.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        for _ in chunk {
            s.line().map_err(|e| e.to_string())?;
        }
    }
    let per_call = start.elapsed().as_secs_f64() * 1e3 / n as f64;
    let no_wait_persistent = Timing { mean: per_call, median: per_call };
    rows.push(Row {
        name: "no-wait socket atoms",
        per_connection: Some(no_wait_conn),
        persistent: Some(no_wait_persistent),
        note: "replies not awaited per call",
    });
    rows.push(Row {
        name: "socket-wait response",
        per_connection: Some(time_calls(n_conn, |i| open_in("sexpr")?.sexpr(&format!("(cog-set-tv! (ConceptNode \"sw{i}\") (stv 0.5 0.5))\n")))?),
        persistent: Some(time_calls(n, |i| s.sexpr(&format!("(cog-set-tv! (ConceptNode \"swp{i}\") (stv 0.5 0.5))\n")))?),
        note: "set a truth value, wait for the reply",
    });

    println!();
    println!("  {:<24} {:>32}   {:>32}", "", "connection per command", "persistent connection");
    println!("  {:<24} {:>10} {:>10} {:>10}   {:>10} {:>10} {:>10}", "test", "ms/call", "median", "calls/s", "ms/call", "median", "calls/s");
    let cell =
        |t: Option<Timing>| t.map_or(format!("{:>10} {:>10} {:>10}", "-", "-", "-"), |t| format!("{:>10.4} {:>10.4} {:>10.0}", t.mean, t.median, 1e3 / t.mean));
    for r in &rows {
        println!("  {:<24} {}   {}  {}", r.name, cell(r.per_connection), cell(r.persistent), r.note);
    }

    // Pipelined creation of distinct atoms on one connection.
    let mut p = open_in("sexpr").map_err(|e| e.to_string())?;
    let total = a.pipelined;
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

    // Many clients at once, each on its own connection, overlapping atoms.
    let clients = a.clients.max(1);
    let per = (n / 10).max(100);
    let start = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|k| {
            let token = token.map(str::to_string);
            std::thread::spawn(move || -> (Vec<f64>, usize) {
                let mut lat = Vec::with_capacity(per);
                let mut c = match Conn::open(addr, token.as_deref()).and_then(|mut c| c.wr.write_all(b"sexpr\n").map(|_| c)) {
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
            })
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
