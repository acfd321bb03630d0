//! The `atomweave` command: load, dump, generate and query Atomese, serve a
//! space over the network, and the benchmarks.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use atomweave::sexpr::{self, Form, Select};
use atomweave::{AtomRead, Type};
use clap::builder::StyledStr;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod bench;
mod generate;
mod input_files;
mod persist;
mod query;
mod shell_bench;
mod sys;

#[derive(Parser)]
#[command(name = "atomweave", version, about = "A fast, persistent AtomSpace")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every command: the user's, then those that measure atomweave, which
/// `--help` lists under a heading of their own ([`command`]).
#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    User(UserCommand),
    #[command(flatten)]
    Bench(BenchCommand),
}

/// The commands that work on the user's atoms: files, stores, queries
/// and the server.
#[derive(Subcommand)]
enum UserCommand {
    /// Load Atomese files (Scheme in them evaluated, as `guile -l` would)
    /// and report counts, time, rate and memory; with --to, store them
    /// (lmdb:///dir, file:///f.scm, ...).
    Load {
        /// `.scm` files to load, in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Store the loaded atoms here.
        #[arg(long, value_name = "URL")]
        to: Option<String>,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
        /// Threads: 1 reads and adds on one; 2 (the default) reads the next
        /// batch of expressions on a second thread while the first adds
        /// (more gain nothing).
        #[arg(short = 'T', long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
        threads: u16,
        #[command(flatten)]
        read: input_files::ReadArgs,
    },
    /// Print the atoms of Atomese files, or of a store (--from), to stdout.
    Dump {
        /// `.scm` files to load, in order.
        #[arg(required_unless_present = "from")]
        files: Vec<PathBuf>,
        /// Read the atoms from this store instead.
        #[arg(long, value_name = "URL")]
        from: Option<String>,
        /// Print only atoms of this type (and its subtypes), each in full.
        #[arg(short, long, value_name = "TYPE")]
        r#type: Option<String>,
        /// Printed form.
        #[arg(short, long, value_enum, default_value_t = FormArg::Wire)]
        form: FormArg,
        /// Report on stderr what was written: atoms and bytes, each per second.
        #[arg(long)]
        stats: bool,
        /// Threads formatting the atoms (default: one per core).
        #[arg(short = 'T', long, value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        #[command(flatten)]
        read: input_files::ReadArgs,
    },
    /// Load Atomese files, execute queries over them and print each result.
    Query(query::QueryArgs),
    /// Copy every atom and value of one store into another.
    Copy {
        /// Store to read (lmdb:///dir, rocks:///dir: upstream's RocksDB store, file:///f.scm, ...).
        src: String,
        /// Store to write.
        dst: String,
        /// No progress bars.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Serve one AtomSpace over upstream's CogServer protocol (telnet port 17001).
    Serve(ServeArgs),
}

/// The commands that measure atomweave, profile it, and make and show
/// what the measuring takes and gives.
#[derive(Subcommand)]
enum BenchCommand {
    /// Upstream's atomspace_bm: time each AtomSpace method, per layer (`-?` for the flags).
    Bench(bench::BenchArgs),
    /// The seeds' paged-storage experiment: insert and search EvaluationLink structures.
    AtomBench(bench::atom_bench::AtomBenchArgs),
    /// The pattern matcher's benchmarks: the "animals" query and triangle counting.
    QueryBench(query::QueryBenchArgs),
    /// The seed's persistence table: store, load and update EvaluationLink structures.
    PersistBench(persist::PersistBenchArgs),
    /// The seed's CogServer shell table: ms per command, per connection and persistent.
    ShellBench(shell_bench::ShellBenchArgs),
    /// Execute one query in a loop, for a profiler (upstream's profile_bindlink; see make profile).
    ProfileQuery(query::ProfileArgs),
    /// Query stored word pairs without loading them: incoming-set fetches and a join, cold and warm.
    ReadThroughBench(bench::read_through::ReadThroughArgs),
    /// Write a reproducible Atomese file: random atoms, or word-pair counts (--shape pairs).
    Generate {
        /// Roughly how many atoms.
        #[arg(short = 'n', long, default_value_t = 1_000_000)]
        atoms: u64,
        /// Random seed.
        #[arg(short = 'R', long, default_value_t = 1)]
        seed: u64,
        /// Output file (stdout when absent); the directory of the files
        /// with `--shape genomics`.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// What the file holds.
        #[arg(long, value_enum, default_value_t = generate::Shape::Random)]
        shape: generate::Shape,
    },
    /// Turn the `<method>_benchmark.csv` files of `bench -f` into one PNG each.
    BenchPlot {
        /// Directory holding the CSV files.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// One self-contained HTML page of a `make bench` results directory:
    /// its tables beside upstream's figures, and a chart per method.
    Report {
        /// The results directory.
        #[arg(default_value = "bench-results")]
        dir: PathBuf,
        /// Where to write the page (default: DIR/report.html).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// The command line. Its help lists the user's commands under "Commands"
/// and the [`BenchCommand`]s under "Benchmarks and profiling", before the
/// options: clap gives subcommands one heading, so the second list is
/// written here, from the same descriptions, and its commands are hidden
/// from the first.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let (header, literal) = (*cmd.get_styles().get_header(), *cmd.get_styles().get_literal());
    let benches: Vec<String> = BenchCommand::augment_subcommands(clap::Command::new("benches")).get_subcommands().map(|c| c.get_name().to_string()).collect();
    let width = benches.iter().map(String::len).max().unwrap_or(0);
    let mut list = StyledStr::new();
    let _ = write!(list, "{header}Benchmarks and profiling:{header:#}");
    for name in &benches {
        let about = cmd.find_subcommand(name).and_then(|c| c.get_about()).map(ToString::to_string).unwrap_or_default();
        let _ = write!(list, "\n  {literal}{name}{literal:#}{:pad$}  {about}", "", pad = width - name.len());
        cmd = cmd.mut_subcommand(name, |c| c.hide(true));
    }
    let mut template = StyledStr::new();
    let _ = write!(
        template,
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{header}Commands:{header:#}\n{{subcommands}}{{after-help}}\n\n{header}Options:{header:#}\n{{options}}"
    );
    cmd.after_help(list).help_template(template)
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Telnet (line protocol) port; 0 picks a free one.
    #[arg(long, default_value_t = atomweave_server::DEFAULT_PORT)]
    port: u16,
    /// HTTP and WebSocket port (/json, /sexpr); 0 picks a free one.
    #[arg(long, default_value_t = atomweave_server::DEFAULT_HTTP_PORT, conflicts_with = "no_http")]
    http_port: u16,
    /// Serve no HTTP or WebSocket port.
    #[arg(long)]
    no_http: bool,
    /// Address to listen on. Anything but loopback needs --token or --token-file.
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// A token that may do everything (the write role); clients send it as
    /// their first line, or as `Authorization: Bearer` on the web port.
    #[arg(long, env = "ATOMWEAVE_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Tokens with their roles, one a line: `TOKEN read` (query and fetch
    /// only) or `TOKEN write`; `#` starts a comment line. Adds to --token.
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// Store behind the space (lmdb:///dir, postgres://..., file:///f.scm):
    /// loaded at start, written through, flushed at shutdown.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// Longest line a client may send, in bytes.
    #[arg(long, default_value_t = atomweave_server::DEFAULT_MAX_LINE)]
    max_line: usize,
    /// When a write acknowledged to a client is durable in --store:
    /// `always` (before the reply; concurrent writes share commits) or a
    /// number of milliseconds after it.
    #[arg(long, default_value = "always", value_name = "always|MS")]
    sync: atomweave_server::Durability,
    /// Connections open at once; more are refused with a message.
    #[arg(long, default_value_t = atomweave_server::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// MiB of unfinished input held for all clients together (beyond 64 KiB each).
    #[arg(long, default_value_t = atomweave_server::DEFAULT_MAX_BUFFERED >> 20, value_name = "MIB")]
    max_buffered: usize,
    /// Close a connection silent for this many seconds (0: never).
    #[arg(long, default_value_t = atomweave_server::DEFAULT_IDLE_TIMEOUT.as_secs(), value_name = "SECS")]
    idle_timeout: u64,
    /// Stop a `scm` command still running after this many seconds (0: never).
    #[arg(long, default_value_t = atomweave_server::DEFAULT_SCM_TIMEOUT.as_secs(), value_name = "SECS")]
    scm_timeout: u64,
    /// Stop a query of the `sexpr` or `json` shell still running after this many seconds, with an error (0: never).
    #[arg(long, default_value_t = atomweave_server::DEFAULT_QUERY_TIMEOUT.as_secs(), value_name = "SECS")]
    query_timeout: u64,
    /// MiB the `scm` shell's Scheme objects may take (0: no cap); past it an evaluation fails with an out-of-memory error.
    #[arg(long, default_value_t = atomweave_server::DEFAULT_SCM_MAX_HEAP >> 20, value_name = "MIB")]
    scm_max_heap: usize,
    /// Close a client that takes none of a reply for this many seconds (at least 1).
    #[arg(long, default_value_t = atomweave_server::DEFAULT_WRITE_TIMEOUT.as_secs(), value_name = "SECS")]
    write_timeout: u64,
    /// A web page (`Origin`, e.g. https://app.example) allowed to use the web port; repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// The server's certificate chain (PEM): both ports speak TLS (the web
    /// port serves https and wss). Needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
}

fn cmd_serve(a: ServeArgs) -> Result<(), String> {
    let http_port = (!a.no_http).then_some(a.http_port);
    let secs = |s: u64| (s > 0).then(|| std::time::Duration::from_secs(s));
    let mut tokens: Vec<atomweave_server::Token> = a.token.into_iter().map(atomweave_server::Token::write).collect();
    if let Some(path) = &a.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--token-file {}: {e}", path.display()))?;
        tokens.extend(atomweave_server::parse_token_file(&text).map_err(|e| format!("--token-file {}: {e}", path.display()))?);
    }
    let config = atomweave_server::Config {
        bind: a.bind,
        port: a.port,
        http_port,
        tokens,
        store: a.store,
        max_line: a.max_line,
        sync: a.sync,
        max_connections: a.max_connections,
        max_buffered: a.max_buffered << 20,
        idle_timeout: secs(a.idle_timeout),
        scm_timeout: secs(a.scm_timeout),
        query_timeout: secs(a.query_timeout),
        allow_origins: a.allow_origin,
        scm_max_heap: (a.scm_max_heap > 0).then_some(a.scm_max_heap << 20),
        write_timeout: std::time::Duration::from_secs(a.write_timeout.max(1)),
        tls: match (&a.tls_cert, &a.tls_key) {
            (Some(cert), Some(key)) => Some(atomweave_server::tls_config(cert, key)?),
            _ => None,
        },
        ..Default::default()
    };
    let store = config.store.clone();
    let tls = config.tls.is_some();
    let space = atomweave_server::serve_blocking(config, |addr, web| {
        let (ws, telnet) = if tls { ("wss", format!("`openssl s_client -connect {addr}`")) } else { ("ws", format!("`nc {} {}`", addr.ip(), addr.port())) };
        let web = web.map_or(String::new(), |w| format!(", {ws}://{w}/json and /sexpr"));
        eprintln!("atomweave serve: listening on {addr} (telnet: {telnet}){web}; shutdown, SIGTERM or Ctrl-C stops it");
        if let Some(url) = &store {
            eprintln!(
                "atomweave serve: writes of the sexpr and json shells go through to {url}; the scm shell's do not (as upstream's): there, write with store-atom"
            );
        }
    })
    .map_err(|e| e.to_string())?;
    eprintln!("atomweave serve: stopped with {} atoms{}", space.size(), store.map_or(String::new(), |s| format!(", its store {s} flushed and closed")));
    Ok(())
}

#[derive(Copy, Clone, ValueEnum)]
enum FormArg {
    /// One line per atom, long type names, every value.
    Wire,
    /// Indented, short type names, truth values only.
    Repl,
}

fn main() -> ExitCode {
    // atomspace_bm spelled its help `-?`.
    let args = std::env::args().map(|a| if a == "-?" { "--help".to_string() } else { a });
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args).unwrap_or_else(|e| e.exit());
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut cmd).exit());
    // A command whose output is piped into `head` ends quietly when the
    // reader leaves, as Unix tools do (Rust ignores SIGPIPE, and print then
    // panics). Not the commands that serve or talk to clients: there a
    // client that leaves must not end the process.
    if !matches!(cli.command, Command::User(UserCommand::Serve(_)) | Command::Bench(BenchCommand::ShellBench(_))) {
        // SAFETY: at start, before any thread: restores the default action.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    // `--from file://...`, `copy`: a file store's file may hold Scheme.
    atomweave_guile::install_file_loader();
    // `load` runs users' files as `guile -l` runs them: their `(exit)` ends
    // the process. Not where work follows the files (`load --to` stores
    // them, `dump`, `query`, `copy` use them: a quit is an error of the
    // file there), nor in a server, whose clients' files must not end it.
    if matches!(cli.command, Command::User(UserCommand::Load { to: None, .. })) {
        atomweave_guile::exit_on_quit(true);
    }
    let result = match cli.command {
        Command::User(c) => run_user(c),
        Command::Bench(c) => run_bench(c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("atomweave: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_user(c: UserCommand) -> Result<(), String> {
    match c {
        UserCommand::Load { files, to, quiet, threads, read } => cmd_load(&files, to.as_deref(), quiet, threads, &read),
        UserCommand::Dump { files, from, r#type, form, stats, threads, read } => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.map_or(0, usize::from)).build().map_err(|e| e.to_string());
            pool.and_then(|p| p.install(|| cmd_dump(&files, from.as_deref(), r#type.as_deref(), form, stats, &read)))
        }
        UserCommand::Query(args) => query::run(args),
        UserCommand::Copy { src, dst, quiet } => persist::copy(&src, &dst, quiet),
        UserCommand::Serve(args) => cmd_serve(args),
    }
}

fn run_bench(c: BenchCommand) -> Result<(), String> {
    match c {
        BenchCommand::Bench(args) => bench::run_bench(args),
        BenchCommand::AtomBench(args) => bench::atom_bench::run(args),
        BenchCommand::QueryBench(args) => query::bench(args),
        BenchCommand::PersistBench(args) => persist::bench(args),
        BenchCommand::ShellBench(args) => shell_bench::run(args),
        BenchCommand::ProfileQuery(args) => query::profile(args),
        BenchCommand::ReadThroughBench(args) => bench::read_through::run(args),
        BenchCommand::Generate { atoms, seed, output, shape } => generate::run(shape, atoms, seed, output.as_deref()),
        BenchCommand::BenchPlot { dir } => bench::plot::plot_dir(&dir).map(|pngs| {
            for p in pngs {
                println!("{}", p.display());
            }
        }),
        BenchCommand::Report { dir, output } => bench::report::write(&dir, output.as_deref()).map(|p| println!("{}", p.display())),
    }
}

fn cmd_load(files: &[PathBuf], to: Option<&str>, quiet: bool, threads: u16, read: &input_files::ReadArgs) -> Result<(), String> {
    let rss_before = sys::rss_bytes();
    let start = Instant::now();
    let mut target = input_files::Target::Table(Box::default());
    let expressions = input_files::load_files_with(&mut target, files, quiet, read, threads == 1)?;
    let secs = start.elapsed().as_secs_f64();
    let (atoms, nodes, links, parts) = match &target {
        input_files::Target::Table(t) => (t.size(), t.num_nodes(), t.num_links(), t.heap_parts()),
        input_files::Target::Space(s) => (s.size(), s.num_nodes(), s.num_links(), s.heap_parts()),
    };
    let heap: usize = parts.iter().map(|(_, bytes)| bytes).sum();
    let rss = sys::rss_bytes().saturating_sub(rss_before);
    println!("expressions  {expressions}");
    println!("atoms        {atoms} ({nodes} nodes, {links} links)");
    println!("time         {secs:.3} s");
    let bytes: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    println!("rate         {:.0} atoms/s, {:.1} MB/s", atoms as f64 / secs.max(1e-9), bytes as f64 / 1e6 / secs.max(1e-9));
    println!("memory       {:.1} MiB resident growth, {:.1} MiB by the table's count", mib(rss), mib(heap));
    // Below this, the process's own start (Guile's heap, say) is most of
    // the growth, and a figure per atom says nothing of the atoms.
    if atoms >= 10_000 {
        println!("per atom     {:.1} bytes resident, {:.1} bytes by the table's count", rss as f64 / atoms as f64, heap as f64 / atoms as f64);
        let per_atom: Vec<String> = parts.iter().map(|(part, bytes)| format!("{part} {:.1}", *bytes as f64 / atoms as f64)).collect();
        println!("by part      {}", per_atom.join(", "));
    }
    if let Some(url) = to {
        let space = target.into_space();
        let start = Instant::now();
        let stored = persist::store_all(&space, url, quiet)?;
        let secs = start.elapsed().as_secs_f64();
        println!("stored       {stored} atoms to {url} in {secs:.3} s ({:.0} atoms/s)", stored as f64 / secs.max(1e-9));
    }
    Ok(())
}

fn cmd_dump(files: &[PathBuf], from: Option<&str>, type_name: Option<&str>, form: FormArg, stats: bool, read: &input_files::ReadArgs) -> Result<(), String> {
    let form = match form {
        FormArg::Wire => Form::Wire,
        FormArg::Repl => Form::Repl,
    };
    let mut target = input_files::Target::Table(Box::default());
    input_files::load_files(&mut target, files, true, read)?;
    if let Some(url) = from {
        let space = target.into_space();
        persist::load_all(&space, url, true)?;
        target = input_files::Target::Space(space);
    }
    // After the load: the type may be one that a family or the store brought.
    let select = match type_name {
        None => Select::Roots,
        Some(n) => Select::Type(Type::from_name(n).ok_or_else(|| format!("unknown type {n:?}"))?),
    };
    let mut bytes = 0u64;
    let out = Counted { inner: BufWriter::with_capacity(1 << 20, io::stdout().lock()), bytes: &mut bytes };
    let start = Instant::now();
    let (written, atoms) = match &target {
        input_files::Target::Table(t) => (sexpr::dump(&**t, select, form, out, |_| {}), t.size()),
        input_files::Target::Space(s) => (sexpr::dump_space(s, select, form, out, |_| {}), s.size()),
    };
    if stats && written.is_ok() {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "dump: {atoms} atoms, {:.1} MB in {secs:.3} s: {:.0} atoms/s, {:.1} MB/s",
            bytes as f64 / 1e6,
            atoms as f64 / secs,
            bytes as f64 / 1e6 / secs
        );
    }
    match written {
        Ok(_) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(format!("writing: {e}")),
    }
}

/// A writer that counts the bytes it passes on.
struct Counted<'a, W> {
    inner: W,
    bytes: &'a mut u64,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        *self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Opens `path` for writing, or stdout.
fn output(path: Option<&Path>) -> Result<Box<dyn Write>, String> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::with_capacity(1 << 20, File::create(p).map_err(|e| format!("{}: {e}", p.display()))?)),
        None => Box::new(BufWriter::with_capacity(1 << 20, io::stdout().lock())),
    })
}
