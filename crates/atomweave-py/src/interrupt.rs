//! Ctrl-C during a long query. Python runs its signal handlers only when
//! the main thread is back in the interpreter, never while a query runs in
//! Rust with the GIL let go; so a query Python started asks, now and then,
//! whether a signal came ([`atomweave::query::Interrupt`]), and one that
//! did stops the query and is raised in its place (`KeyboardInterrupt`).
//! The thread that started the query asks Python (the core asks it also
//! while that thread waits for a search split across threads); the
//! query's other threads read what it heard.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Instant;

use atomweave::query::{with_interrupt, Interrupt};
use pyo3::prelude::*;

use crate::OrPy;

/// How often the query's thread takes the GIL to look for signals: rare
/// enough to cost nothing, often enough that Ctrl-C feels at once.
const EVERY_MS: u64 = 50;

struct Signals {
    /// The thread that started the query, the only one that asks Python
    /// (which gives signals to its main thread only).
    owner: ThreadId,
    start: Instant,
    next_ms: AtomicU64,
    /// What a signal handler raised.
    raised: Mutex<Option<PyErr>>,
    /// Whether one did, for the query's other threads.
    tripped: AtomicBool,
}

impl Signals {
    fn check(&self) -> bool {
        if self.tripped.load(Ordering::Relaxed) {
            return true;
        }
        if std::thread::current().id() != self.owner {
            return false;
        }
        let now = self.start.elapsed().as_millis() as u64;
        if now < self.next_ms.load(Ordering::Relaxed) {
            return false;
        }
        self.next_ms.store(now + EVERY_MS, Ordering::Relaxed);
        // Not under the lock: a signal handler may run a query of its own,
        // whose interrupt asks this one again.
        let Some(e) = Python::with_gil(|py| py.check_signals().err()) else { return false };
        self.raised.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        self.tripped.store(true, Ordering::Relaxed);
        true
    }
}

/// Runs `f` (a query) with the GIL let go, stopping it at a signal whose
/// handler raises, and raising that (Ctrl-C: `KeyboardInterrupt`).
pub(crate) fn run<R: Send>(py: Python<'_>, f: impl FnOnce() -> atomweave::Result<R> + Send) -> PyResult<R> {
    let signals = Arc::new(Signals {
        owner: std::thread::current().id(),
        start: Instant::now(),
        next_ms: AtomicU64::new(EVERY_MS),
        raised: Mutex::new(None),
        tripped: AtomicBool::new(false),
    });
    let hook = signals.clone();
    let done = py.allow_threads(|| with_interrupt(Interrupt(Arc::new(move || hook.check())), f));
    if let Some(e) = signals.raised.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    done.or_py()
}
