//! Stopping Scheme evaluations from outside: a time limit per evaluation
//! ([`eval_within`]) and a stop for all of them ([`interrupt`]), for
//! embedders such as the server, whose clients may send `(let loop ()
//! (loop))`.
//!
//! A watchdog thread marks an overdue evaluation's thread with an async
//! (`scm_system_async_mark_for_thread`), which Guile runs at the thread's
//! next safe point (a call, a loop's back edge): it throws, and the
//! evaluation unwinds to the shell's handler. The async checks that its
//! evaluation is still the one overdue, so a mark that lands just after
//! an evaluation finished does not stop the next one. Code that catches
//! every exception is marked again every [`REMARK`] until it ends. A
//! query running in Rust, out of the asyncs' reach, watches the same
//! deadline and a cancel flag that [`interrupt`] sets.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, R};
use crate::ffi::{self, Scm};

/// The evaluations of one caller (a server), stopped together by
/// [`interrupt`] and apart from other callers' in the same process.
pub struct EvalGroup(u64);

impl EvalGroup {
    pub fn new() -> EvalGroup {
        EvalGroup(NEXT_ID.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for EvalGroup {
    fn default() -> Self {
        Self::new()
    }
}

/// An evaluation that may be interrupted.
struct Running {
    id: u64,
    group: u64,
    /// The Scheme thread object it runs on (alive while it is registered).
    thread: usize,
    deadline: Option<Instant>,
    limit: Option<Duration>,
    /// Why it is being stopped, once it is.
    stop: Option<String>,
    /// Stops the queries it runs.
    cancel: Arc<AtomicBool>,
}

static RUNNING: Mutex<Vec<Running>> = Mutex::new(Vec::new());
static CHANGED: Condvar = Condvar::new();
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// How often a stopped evaluation that has not ended is marked again.
const REMARK: Duration = Duration::from_millis(100);

/// Evaluates `code` as [`crate::eval`] does, interrupted after `limit`
/// (or by [`interrupt`] of its `group`). Call in Guile mode.
pub fn eval_within(code: &str, limit: Option<Duration>, group: &EvalGroup) -> Result<String, String> {
    static WATCHDOG: std::sync::Once = std::sync::Once::new();
    WATCHDOG.call_once(|| {
        std::thread::Builder::new().name("atomweave-scm-watchdog".into()).spawn(watch).expect("a watchdog thread");
    });
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    // SAFETY: in Guile mode, as this function requires.
    let thread = unsafe { ffi::scm_current_thread() }.bits();
    let deadline = limit.map(|l| Instant::now() + l);
    let cancel = Arc::new(AtomicBool::new(false));
    RUNNING.lock().push(Running { id, group: group.0, thread, deadline, limit, stop: None, cancel: cancel.clone() });
    CHANGED.notify_one();
    // Guile's interrupts reach Scheme code only: a query the command runs
    // watches the deadline and the cancel flag itself.
    let limits = atomweave::query::Limits { deadline, cancel: Some(cancel), ..Default::default() };
    let result = atomweave::query::with_limits(limits, || crate::eval(code));
    let stopped = {
        let mut running = RUNNING.lock();
        let i = running.iter().position(|r| r.id == id).expect("registered above");
        running.swap_remove(i).stop
    };
    match (result, stopped) {
        (Err(_), Some(why)) => Err(why),
        // A query saw the deadline before the watchdog did.
        (Err(_), None) if deadline.is_some_and(|d| Instant::now() >= d) => Err(overdue(limit)),
        (result, _) => result,
    }
}

/// Why an evaluation past its time limit was stopped.
fn overdue(limit: Option<Duration>) -> String {
    format!("evaluation stopped: it ran longer than the {} s a command may take", limit.map_or(0.0, |l| l.as_secs_f64()))
}

/// Stops every running evaluation of `group` ([`eval_within`]).
pub fn interrupt(group: &EvalGroup, why: &str) {
    for r in RUNNING.lock().iter_mut().filter(|r| r.group == group.0) {
        r.stop.get_or_insert_with(|| why.to_string());
        r.cancel.store(true, Ordering::Relaxed);
    }
    CHANGED.notify_one();
}

/// The watchdog: marks overdue and stopped evaluations' threads.
fn watch() {
    let mut running = RUNNING.lock();
    loop {
        let now = Instant::now();
        let mut marks = Vec::new();
        let mut next: Option<Instant> = None;
        for r in running.iter_mut() {
            if r.stop.is_none() && r.deadline.is_some_and(|d| d <= now) {
                r.stop = Some(overdue(r.limit));
            }
            if r.stop.is_some() {
                marks.push(r.thread);
                next = Some(now + REMARK);
            } else if let Some(d) = r.deadline {
                next = Some(next.map_or(d, |n| n.min(d)));
            }
        }
        if !marks.is_empty() {
            // Marked while the list is held: a thread is registered, so
            // alive and in Guile mode, until its entry is removed.
            crate::with_guile(|| {
                let proc_ = crate::shell(crate::Shell::Interrupt);
                for t in marks {
                    // SAFETY: in Guile mode; `t` is a live thread object and `proc_` a thunk.
                    unsafe { ffi::scm_system_async_mark_for_thread(proc_, Scm::from_bits(t)) };
                }
            });
        }
        match next {
            Some(at) => {
                CHANGED.wait_until(&mut running, at);
            }
            None => CHANGED.wait(&mut running),
        }
    }
}

/// `(%atomweave-interrupt-check)`, the async the watchdog marks a thread
/// with: throws if an evaluation on this thread is being stopped.
pub(crate) fn check() -> R<Scm> {
    // SAFETY: a primitive runs in Guile mode.
    let me = unsafe { ffi::scm_current_thread() }.bits();
    match RUNNING.lock().iter().find(|r| r.thread == me).and_then(|r| r.stop.clone()) {
        Some(why) => Err(Error::msg(why)),
        None => Ok(ffi::UNSPECIFIED),
    }
}
