//! The tests that need a second process (a writer killed mid-store, two
//! processes on one store, a file size limit, a full disk) run a child
//! half: an `#[ignore]`d test of the same test binary, started here as a
//! child process with `--ignored --exact NAME`, its parameters in
//! environment variables.
//!
//! [`ChildTest`] says which test and with what; [`Running`] is the child
//! while it runs: its stdout read line by line, its stdin written, its
//! stderr collected on a thread of its own (so a chatty child never blocks
//! on a full pipe). Dropping a `Running` kills the child and reaps it, so
//! no child outlives its test, however the test ends.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Lines, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

/// A child half to run: one test of this binary, and its environment.
pub struct ChildTest {
    cmd: Command,
}

impl ChildTest {
    /// The test `name` of this test binary, run alone.
    pub fn new(name: &str) -> ChildTest {
        let mut cmd = Command::new(std::env::current_exe().expect("the test binary's path"));
        cmd.args(test_args(name));
        ChildTest { cmd }
    }

    /// The test `name` of this test binary, run by `wrapper`: a program
    /// and its arguments, which end with the binary's path and the
    /// arguments that run the test (`unshare ... sh -c '...; exec "$@"'`).
    pub fn wrapped<S: AsRef<OsStr>>(wrapper: &[S], name: &str) -> ChildTest {
        let (program, args) = wrapper.split_first().expect("a wrapper program");
        let mut cmd = Command::new(program);
        cmd.args(args).arg(std::env::current_exe().expect("the test binary's path")).args(test_args(name));
        ChildTest { cmd }
    }

    /// Sets the environment variable `key` to `value` for the child.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> ChildTest {
        self.cmd.env(key, value);
        self
    }

    /// Starts the child, its stdin, stdout and stderr piped.
    pub fn spawn(mut self) -> Running {
        self.cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().unwrap_or_else(|e| panic!("starting {:?}: {e}", self.cmd.get_program()));
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let mut stderr = child.stderr.take().expect("piped stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        Running { child, lines, stdin, stderr: Some(stderr), reaped: false }
    }

    /// Runs the child to its end, its stdin closed at once.
    pub fn run(self) -> Ended {
        self.spawn().finish()
    }
}

/// libtest's arguments that run `name` alone, its output not captured.
fn test_args(name: &str) -> [&str; 6] {
    ["--ignored", "--exact", name, "--nocapture", "--test-threads", "1"]
}

/// A child that is running, killed and reaped when dropped.
pub struct Running {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    reaped: bool,
}

/// A child's end: how it exited, the stdout lines not read before, and all
/// it wrote to stderr.
pub struct Ended {
    pub status: ExitStatus,
    pub lines: Vec<String>,
    pub stderr: String,
}

impl Ended {
    /// Whether it exited with success.
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Whether a stdout line (of those left) contains `text`.
    pub fn said(&self, text: &str) -> bool {
        self.lines.iter().any(|l| l.contains(text))
    }

    /// All it wrote, stdout's lines left and stderr, for a failure's message.
    pub fn text(&self) -> String {
        format!("{}\n{}", self.lines.join("\n"), self.stderr)
    }

    /// The first line of stderr about a failure (a panic or an `Err`).
    pub fn first_error(&self) -> &str {
        self.stderr.lines().find(|l| l.contains("panicked") || l.contains("Err")).unwrap_or("")
    }
}

impl Running {
    /// The next line of stdout; `None` at its end.
    pub fn next_line(&mut self) -> Option<String> {
        self.lines.next().and_then(Result::ok)
    }

    /// Reads stdout up to the first line that contains `text` (libtest may
    /// print a child's first line after "test NAME ... "); that line, or
    /// `None` if stdout ended first.
    pub fn wait_for(&mut self, text: &str) -> Option<String> {
        std::iter::from_fn(|| self.next_line()).find(|l| l.contains(text))
    }

    /// Writes `text` to the child's stdin.
    pub fn send(&mut self, text: &str) {
        self.stdin.as_mut().expect("stdin open").write_all(text.as_bytes()).expect("the child reads its stdin");
    }

    /// Kills the child (SIGKILL) and reaps it; what it wrote before.
    pub fn kill(mut self) -> Ended {
        let _ = self.child.kill();
        self.end(Vec::new())
    }

    /// Closes the child's stdin and waits for it to exit, reading its
    /// stdout to the end meanwhile.
    pub fn finish(mut self) -> Ended {
        drop(self.stdin.take());
        let lines = std::iter::from_fn(|| self.next_line()).collect();
        self.end(lines)
    }

    /// Reaps the child: its end, with `lines` and the stdout lines after them.
    fn end(&mut self, mut lines: Vec<String>) -> Ended {
        let status = self.child.wait().expect("the child is reaped");
        self.reaped = true;
        lines.extend(std::iter::from_fn(|| self.next_line()));
        let stderr = self.stderr.take().map(|t| t.join().unwrap_or_default()).unwrap_or_default();
        Ended { status, lines, stderr }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
