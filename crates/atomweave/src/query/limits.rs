//! What bounds a query: its deadline, interrupt and grounding cap
//! ([`Limits`]), how deep executions nest, the stack each execution and
//! search runs on, and what threads of a split search take from the
//! thread that split it.
//!
//! **Invariant:** every loop over user data that can run long asks
//! [`expired`] or [`check_deadline`]; every execution goes through
//! [`nested`], so nesting is bounded by a counter, never by the stack.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::error::{Error, Result};

use super::{bad, join, transient};

/// What a query may take: a server sets them around each client's command.
#[derive(Clone, Debug)]
pub struct Limits {
    /// When a query stops with [`Error::TimedOut`] (`None`: never).
    pub deadline: Option<Instant>,
    /// Set (by another thread: a shutdown) to stop the query at once with
    /// [`Error::TimedOut`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// Most groundings a search may find before it stops with an error
    /// (16 M by default: as many results may fill gigabytes; each part of
    /// a split search stops at its own count, and the whole is checked
    /// when they are put together).
    pub max_groundings: usize,
    /// Asked whenever the deadline is (every 1,024 steps), on every thread
    /// the query runs on, and every few milliseconds by a thread waiting
    /// for the threads it split a query across: `true` stops the query
    /// with [`Error::TimedOut`]. What a front end hooks its user's
    /// interrupt (Ctrl-C) to; see [`with_interrupt`].
    pub interrupt: Option<Interrupt>,
    /// Refuse every call of a grounded procedure (`py:`, `scm:`) with an
    /// error: for a query run for a client that may only read, since the
    /// code could do anything.
    pub refuse_grounded: bool,
}

/// A check for [`Limits::interrupt`]. Made often, so it should cost little
/// when it finds nothing (read a clock, skip most calls); once it has said
/// `true` it must go on saying so (the query's threads each ask it).
#[derive(Clone)]
pub struct Interrupt(pub Arc<dyn Fn() -> bool + Send + Sync>);

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupt(..)")
    }
}

impl Limits {
    /// These limits, also past once `stop` is set where an interrupt is
    /// hooked: how the threads of a query hear what the thread waiting for
    /// them heard ([`Waited::join_polled`]).
    pub(crate) fn stopped_by(mut self, stop: &Arc<AtomicBool>) -> Limits {
        if let Some(outer) = self.interrupt.take() {
            let stop = stop.clone();
            self.interrupt = Some(Interrupt(Arc::new(move || stop.load(Ordering::Relaxed) || (outer.0)())));
        }
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits { deadline: None, cancel: None, max_groundings: 1 << 24, interrupt: None, refuse_grounded: false }
    }
}

/// Runs `f` under this thread's limits with `check` added as an
/// interrupt (asked before any it has: either stops the query, and the
/// innermost caller, whose query was running, hears first), keeping the
/// deadline, cancel flag and counts a caller (a server's command) set.
pub fn with_interrupt<R>(check: Interrupt, f: impl FnOnce() -> R) -> R {
    let mut l = limits();
    l.interrupt = Some(match l.interrupt.take() {
        Some(outer) => Interrupt(Arc::new(move || (check.0)() || (outer.0)())),
        None => check,
    });
    with_limits(l, f)
}

/// How often a thread waiting for the threads of its query asks its
/// interrupt.
const POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// Runs `job`, which splits work across the rayon pool, each part to run
/// as on this thread (`job` is given this thread's [`Inherited`], with
/// `stack` bytes of stack). Where an interrupt is hooked, which a front end
/// may answer on the thread that started the query only (Python's
/// signals), `job` runs on a thread of its own while this one keeps asking
/// it, and the parts hear what it answered; not on a rayon worker, which
/// helps with the parts meanwhile, nor where no thread can be started.
pub(crate) fn split<R: Send>(stack: usize, job: impl FnOnce(&Inherited) -> R + Send) -> R {
    let mut inherited = Inherited::here(stack);
    if inherited.limits.interrupt.is_none() || rayon::current_thread_index().is_some() {
        return job(&inherited);
    }
    let stop = Arc::new(AtomicBool::new(false));
    inherited.limits = inherited.limits.stopped_by(&stop);
    let inherited = &inherited;
    let job = std::sync::Mutex::new(Some(job));
    let take = || job.lock().unwrap_or_else(|p| p.into_inner()).take().expect("the job runs once");
    std::thread::scope(|scope| match spawn_waited(scope, "atomweave:query", move || take()(inherited)) {
        Ok(t) => t.join_polled(&stop).unwrap_or_else(|p| std::panic::resume_unwind(p)),
        Err(_) => take()(inherited),
    })
}

/// A thread of a query that the thread which started it waits for while
/// it asks its limits ([`Waited::join_polled`]).
pub(crate) struct Waited<'scope, T> {
    thread: std::thread::ScopedJoinHandle<'scope, T>,
    /// Set (and the waiter woken) as the thread ends or unwinds.
    done: Arc<AtomicBool>,
}

/// Starts `f` on a thread of `scope` named `name`, for the current thread
/// to wait for with [`Waited::join_polled`].
pub(crate) fn spawn_waited<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<Waited<'scope, T>> {
    struct Ending(Arc<AtomicBool>, std::thread::Thread);
    impl Drop for Ending {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
            self.1.unpark();
        }
    }
    let done = Arc::new(AtomicBool::new(false));
    let ending = Ending(done.clone(), std::thread::current());
    let thread = std::thread::Builder::new().name(name.into()).spawn_scoped(scope, move || {
        let _ending = ending;
        f()
    })?;
    Ok(Waited { thread, done })
}

impl<T> Waited<'_, T> {
    /// Waits for the thread, asking this thread's limits every [`POLL`];
    /// once they are past, `stop` is set, for the threads whose limits
    /// read it, and this thread's query is past them too (so it fails,
    /// whatever its parts made of the stop). Should asking panic, `stop`
    /// is set before the panic waits for the thread.
    pub(crate) fn join_polled(self, stop: &AtomicBool) -> std::thread::Result<T> {
        struct StopOnPanic<'a>(&'a AtomicBool);
        impl Drop for StopOnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }
        let _guard = StopOnPanic(stop);
        while !self.done.load(Ordering::Acquire) {
            std::thread::park_timeout(POLL);
            if !stop.load(Ordering::Relaxed) && past_limits() {
                stop.store(true, Ordering::Relaxed);
                PAST.set(true);
            }
        }
        self.thread.join()
    }
}

thread_local! {
    /// The limits of the queries this thread runs; how many steps a search
    /// took since it last read the clock; and whether the deadline passed.
    static LIMITS: RefCell<Limits> = RefCell::new(Limits::default());
    static STEPS: Cell<u32> = const { Cell::new(0) };
    static PAST: Cell<bool> = const { Cell::new(false) };
    /// How deep executions nest (a schema whose body executes another).
    pub(super) static NESTED: Cell<usize> = const { Cell::new(0) };
}

/// Most executions nested in one another: a definition that calls itself
/// without end stops here with an error rather than overflowing the stack.
pub(super) const MAX_NESTED: usize = 256;

/// Runs `f` with `limits` for every query it executes on this thread. The
/// threads a search is split across work under the same limits.
pub fn with_limits<R>(limits: Limits, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Limits>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(limits) = self.0.take() {
                LIMITS.set(limits);
            }
            PAST.set(self.1);
        }
    }
    let _restore = Restore(Some(LIMITS.replace(limits)), PAST.replace(false));
    // A split search's chunk runs in a session of its own thread.
    let _session = transient::Session::enter();
    f()
}

/// This thread's query limits.
pub(crate) fn limits() -> Limits {
    LIMITS.with_borrow(Limits::clone)
}

/// Are this thread's query's calls of grounded procedures refused?
pub(crate) fn grounded_refused() -> bool {
    LIMITS.with_borrow(|l| l.refuse_grounded)
}

/// The most groundings this thread's query may find.
pub(crate) fn max_groundings() -> usize {
    LIMITS.with_borrow(|l| l.max_groundings)
}

/// Are this thread's query's limits passed (the clock read now)?
fn past_limits() -> bool {
    // The interrupt is called outside the borrow: it may run a query.
    let (past, interrupt) = LIMITS.with_borrow(|l| {
        let past = l.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) || l.deadline.is_some_and(|d| Instant::now() >= d);
        (past, l.interrupt.clone())
    });
    past || interrupt.is_some_and(|i| (i.0)())
}

/// Has the query's deadline passed? A step of the search or the
/// evaluator: the clock is read every 1,024 steps.
#[inline]
pub(crate) fn expired() -> bool {
    if PAST.get() {
        return true;
    }
    let n = STEPS.get().wrapping_add(1);
    STEPS.set(n);
    if n % 1024 != 0 {
        return false;
    }
    let past = past_limits();
    PAST.set(past);
    past
}

/// The error of a search that found more than `max` groundings.
pub(crate) fn check_groundings(found: usize, max: usize) -> Result<()> {
    if found > max {
        return Err(bad(format!("the query has more than {max} groundings (the limit)")));
    }
    Ok(())
}

/// [`Error::TimedOut`] once the deadline has passed or the query was cancelled.
pub(crate) fn check_deadline() -> Result<()> {
    if PAST.get() || past_limits() {
        return Err(Error::TimedOut);
    }
    Ok(())
}

/// Stack an execution starts with at least: the evaluator's walks go
/// `MAX_DEPTH` deep at a few hundred bytes a level.
const EXECUTION_STACK: usize = 256 << 10;

/// Stack segment an execution or a search moves to when less than it needs
/// is left: deep in nested executions, or on a thread with a small stack
/// (a rayon worker's is 2 MiB). So the stack bounds no nesting: the
/// counters and depth limits do, at the cost of a segment per level.
const STACK_SEGMENT: usize = 4 << 20;

/// Runs `f` with at least `need` bytes of stack, on a new segment if less
/// is left.
pub(crate) fn with_stack<R>(need: usize, f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(need, need.max(STACK_SEGMENT), f)
}

/// Stack a search of a conjunction of `match_size` terms needs: the
/// matcher takes a frame or two per term (`MAX_MATCH_SIZE`), and the
/// conditions it evaluates start from there.
pub(crate) fn search_stack(match_size: usize) -> usize {
    match_size.saturating_mul(640).saturating_add(EXECUTION_STACK)
}

/// What the threads of a split search take from the thread that split it:
/// its limits, its search strategy, how deep executions nest there (so
/// that nesting through split searches stays bounded) and the stack the
/// search needs.
pub(crate) struct Inherited {
    limits: Limits,
    strategy: join::Strategy,
    nested: usize,
    stack: usize,
}

impl Inherited {
    /// This thread's, for a search that needs `stack` bytes of stack.
    pub(crate) fn here(stack: usize) -> Inherited {
        Inherited { limits: limits(), strategy: join::strategy(), nested: NESTED.get(), stack }
    }

    /// Runs `f` (on any thread) as on the thread it was taken from.
    pub(crate) fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(usize);
        impl Drop for Restore {
            fn drop(&mut self) {
                NESTED.set(self.0);
            }
        }
        let _restore = Restore(NESTED.replace(self.nested));
        with_limits(self.limits.clone(), || join::with_strategy(self.strategy, || with_stack(self.stack, f)))
    }
}

/// Runs `f` one execution deeper, with the stack an execution needs.
pub(crate) fn nested<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            NESTED.set(NESTED.get() - 1);
        }
    }
    if NESTED.get() >= MAX_NESTED {
        return Err(bad(format!("executions nest more than {MAX_NESTED} deep (a definition that calls itself without end?)")));
    }
    NESTED.set(NESTED.get() + 1);
    let _leave = Leave;
    with_stack(EXECUTION_STACK, f)
}
