//! A throwaway PostgreSQL server: `initdb` and `pg_ctl` on a temporary
//! directory and a free loopback port, from the server binaries Debian's
//! `postgresql` package installs. The tests and `persist-bench --backend
//! postgres` use it.
//!
//! Invariant: a scratch server lives as long as its [`ScratchServer`]:
//! it listens on loopback only, and is stopped and its directory removed
//! when the value is dropped.
//!
//! PostgreSQL refuses to run as root, so under root the server runs as the
//! `postgres` user (which the Debian package creates), through `runuser`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Result, StoreError};

/// A running scratch server.
pub struct ScratchServer {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
    as_postgres: bool,
}

fn fail(msg: String) -> StoreError {
    StoreError::Backend(format!("scratch PostgreSQL server: {msg}"))
}

/// The directory holding `initdb` and `pg_ctl`: `$ATOMWEAVE_PG_BIN`, else
/// the newest `/usr/lib/postgresql/<version>/bin`.
pub fn server_bin_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("ATOMWEAVE_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin).ok_or_else(|| {
        fail("no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin: install Debian's postgresql package (make test does), or set ATOMWEAVE_PG_BIN".into())
    })
}

/// A free loopback port outside the kernel's ephemeral range, where no
/// client connection (of the tests or anyone else) takes it as its local
/// port before the server binds it, or while the server is down for a restart.
fn free_port() -> Result<u16> {
    use std::hash::{BuildHasher, Hasher};
    let ephemeral = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| {
            let mut it = s.split_whitespace().map(|x| x.parse::<u16>().ok());
            Some((it.next()??, it.next()??))
        })
        .unwrap_or((32768, 60999));
    let seed = std::collections::hash_map::RandomState::new().build_hasher().finish();
    for i in 0..2000u64 {
        let port = 10_000 + (seed.wrapping_add(i.wrapping_mul(7919)) % 50_000) as u16;
        if (ephemeral.0..=ephemeral.1).contains(&port) {
            continue;
        }
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    // The ephemeral range covers nearly every port: take one from it.
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).map_err(|e| fail(format!("no free port: {e}")))
}

impl ScratchServer {
    /// Starts a server. `durable: false` turns off fsync (tests); `true`
    /// keeps PostgreSQL's durability settings (benchmarks).
    pub fn start(durable: bool) -> Result<ScratchServer> {
        let bin = server_bin_dir()?;
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let dir = tempfile::Builder::new().prefix("atomweave-pg-").tempdir().map_err(|e| fail(format!("cannot make a directory: {e}")))?;
        let port = free_port()?;
        let mut server = ScratchServer { bin, dir, port, as_postgres };
        if as_postgres {
            server.run("chown", &["-R".into(), "postgres:".into(), server.dir.path().display().to_string()], false)?;
        }
        let data = server.data().display().to_string();
        server.run(
            "initdb",
            &["-D".into(), data, "-A".into(), "trust".into(), "-U".into(), "atomweave".into(), "-E".into(), "UTF8".into(), "--no-sync".into()],
            true,
        )?;
        // Durable (fsync, full-page writes and synchronous commit as
        // PostgreSQL ships them), with the memory settings any deployment
        // sets: the 128 MB default buffer cache thrashes at a million atoms.
        let mut conf = String::from("listen_addresses = '127.0.0.1'\nmax_connections = 300\nshared_buffers = 1GB\nmax_wal_size = 4GB\n");
        if !durable {
            // Commits still reach the OS (synchronous_commit stays on), so a
            // stopped server keeps them; only a machine crash could lose them.
            conf += "fsync = off\nfull_page_writes = off\n";
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(server.data().join("postgresql.conf"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes()))
            .map_err(|e| fail(format!("cannot configure: {e}")))?;
        // A port found free can still be taken before the server binds it.
        let mut tries = 0;
        loop {
            match server.start_again() {
                Err(e) if tries < 8 && e.to_string().contains("Address already in use") => {
                    tries += 1;
                    server.port = free_port()?;
                }
                done => return done.map(|()| server),
            }
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Runs a command (a server binary if `server_bin`), as `postgres` under root.
    fn run(&self, program: &str, args: &[String], server_bin: bool) -> Result<()> {
        let path = if server_bin { self.bin.join(program) } else { PathBuf::from(program) };
        let mut cmd = if self.as_postgres && server_bin {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = cmd.args(args).current_dir(self.dir.path()).output().map_err(|e| fail(format!("cannot run {}: {e}", path.display())))?;
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default();
            return Err(fail(format!("{program} failed: {}{}\n{log}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout))));
        }
        Ok(())
    }

    fn pg_ctl(&self, args: &[&str]) -> Result<()> {
        let mut all: Vec<String> = vec!["-D".into(), self.data().display().to_string(), "-l".into(), self.dir.path().join("log").display().to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        self.run("pg_ctl", &all, true)
    }

    /// Starts the server (again, after [`stop`](Self::stop)) on the same port.
    pub fn start_again(&self) -> Result<()> {
        let opts = format!("-p {} -k {}", self.port, self.dir.path().display());
        self.pg_ctl(&["-w", "-t", "60", "-o", &opts, "start"])
    }

    /// Stops the server at once, as a crash or an administrator would.
    pub fn stop(&self) -> Result<()> {
        self.pg_ctl(&["-w", "-m", "immediate", "stop"])
    }

    /// The URL of the server's default database.
    pub fn url(&self) -> String {
        format!("postgres://atomweave@127.0.0.1:{}/postgres", self.port)
    }

    /// Makes a new, empty database and returns its URL.
    pub fn new_database(&self, name: &str) -> Result<String> {
        let mut c = postgres::Client::connect(&self.url(), postgres::NoTls).map_err(|e| fail(format!("cannot connect: {e}")))?;
        c.batch_execute(&format!("CREATE DATABASE \"{}\"", name.replace('"', ""))).map_err(|e| fail(format!("cannot create database {name}: {e}")))?;
        Ok(format!("postgres://atomweave@127.0.0.1:{}/{}", self.port, name))
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for ScratchServer {
    fn drop(&mut self) {
        if self.data().join("postmaster.pid").exists() {
            let _ = self.stop();
        }
    }
}
