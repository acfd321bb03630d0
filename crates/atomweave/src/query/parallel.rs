//! Atomese that runs on threads of its own: ParallelLink (each member
//! evaluated on a thread started and not waited for), ThreadJoinLink (the
//! same, waited for: true when every member is) and ExecuteThreadedLink
//! (the members of a SetLink executed by N worker threads, their results
//! in a QueueValue in the order they finished).
//!
//! Each thread runs under the limits (deadline, cancellation, interrupt)
//! and at the nesting depth of the code that started it; a thread that
//! waits for others asks its interrupt meanwhile, and they hear what it
//! answered (a front end's may answer on one thread only). Code that starts threads
//! that start threads stops at the nesting limit; and at most
//! [`MAX_THREADS`] such threads run at once in the process: past that, a
//! start is an error, not a thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::limits::{spawn_waited, NESTED};
use super::{bad, describe, evaluate, execute, holds, limits, type_of, with_limits, Executed};
use crate::error::Result;
use crate::types;
use crate::{AtomSpace, Handle, QueueValue, TruthValue, Value};

/// Most threads these links may run at once, in the whole process.
pub const MAX_THREADS: usize = 256;

/// Threads these links run now.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Room for `n` threads, given back when dropped.
struct Reserved(usize);

impl Reserved {
    fn take(n: usize) -> Result<Reserved> {
        let mut live = LIVE.load(Ordering::Relaxed);
        loop {
            if live + n > MAX_THREADS {
                return Err(bad(format!(
                    "{n} more threads would make more than {MAX_THREADS} run by ParallelLink, ThreadJoinLink and ExecuteThreadedLink at once"
                )));
            }
            match LIVE.compare_exchange_weak(live, live + n, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Ok(Reserved(n)),
                Err(now) => live = now,
            }
        }
    }

    /// One thread's share, to move into it.
    fn split_one(&mut self) -> Reserved {
        self.0 -= 1;
        Reserved(1)
    }
}

impl Drop for Reserved {
    fn drop(&mut self) {
        LIVE.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// Runs `f` on this (new) thread as the code at `depth` under `limits` would.
fn as_caller<R>(limits: super::Limits, depth: usize, f: impl FnOnce() -> R) -> R {
    NESTED.set(depth);
    with_limits(limits, f)
}

/// ParallelLink: each member evaluated on a thread of its own; returns at
/// once. A member that fails is reported on standard error (no one waits
/// for it), as upstream logs it.
pub(crate) fn start(space: &AtomSpace, members: &[Handle]) -> Result<()> {
    let mut room = Reserved::take(members.len())?;
    let (limits, depth) = (limits(), NESTED.get());
    for &m in members {
        let (space, limits, slot) = (space.clone(), limits.clone(), room.split_one());
        std::thread::Builder::new()
            .name("atomweave:parallel".into())
            .spawn(move || {
                let _slot = slot;
                if let Err(e) = as_caller(limits, depth, || evaluate(&space, m)) {
                    eprintln!("atomweave: a member of a ParallelLink failed: {e}");
                }
            })
            .map_err(|e| bad(format!("cannot start a thread: {e}")))?;
    }
    Ok(())
}

/// ThreadJoinLink: each member evaluated on a thread of its own, all
/// waited for; true when each member's strength is at least one half. The
/// first failure (in member order) is the result when any fails.
pub(crate) fn join(space: &AtomSpace, members: &[Handle]) -> Result<bool> {
    let _room = Reserved::take(members.len())?;
    let stop = Arc::new(AtomicBool::new(false));
    let (limits, depth) = (limits().stopped_by(&stop), NESTED.get());
    let verdicts: Vec<Result<TruthValue>> = std::thread::scope(|scope| {
        let threads: Vec<_> = members
            .iter()
            .map(|&m| {
                let limits = limits.clone();
                spawn_waited(scope, "atomweave:join", move || as_caller(limits, depth, || evaluate(space, m)))
            })
            .collect();
        threads
            .into_iter()
            .map(|t| match t {
                Ok(t) => t.join_polled(&stop).unwrap_or_else(|_| Err(bad("a ThreadJoinLink thread panicked".into()))),
                Err(e) => Err(bad(format!("cannot start a thread: {e}"))),
            })
            .collect()
    });
    let mut all = true;
    for v in verdicts {
        all &= holds(v?);
    }
    Ok(all)
}

/// ExecuteThreadedLink: `([NumberNode N] (Set CODE...))`, the code run by N
/// threads (one per member when N is not given), each result (an atom, or
/// a value) in the queue given, in the order they finished.
pub(crate) fn execute_threaded(space: &AtomSpace, h: Handle) -> Result<Value> {
    let out = space.outgoing(h).unwrap_or(&[]);
    let (threads, set) = match *out {
        [set] => (None, set),
        [n, set] if type_of(space, n)? == types::NUMBER_NODE => {
            let n = super::eval::flow_numbers(space, n)?.0.first().copied().unwrap_or(0.0).floor();
            if n.is_nan() || n < 1.0 {
                return Err(bad(format!("{}: the number of threads must be 1 or more", describe(space, h))));
            }
            (Some(n as usize), set)
        }
        _ => return Err(bad(format!("{} must hold a SetLink of code to run, after an optional NumberNode of threads", describe(space, h)))),
    };
    if type_of(space, set)? != types::SET_LINK {
        return Err(bad(format!("{}: expected a SetLink of code to run", describe(space, h))));
    }
    let work = space.outgoing(set).unwrap_or(&[]);
    let threads = threads.unwrap_or(work.len()).min(work.len());
    let _room = Reserved::take(threads)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (limits, depth) = (limits().stopped_by(&stop), NESTED.get());
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Value>> = Mutex::new(Vec::with_capacity(work.len()));
    let failed: Mutex<Option<crate::Error>> = Mutex::new(None);
    let worker = || {
        as_caller(limits.clone(), depth, || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&code) = work.get(i) else { return };
            match execute(space, code) {
                Ok(Executed::Atom(a)) => done.lock().unwrap_or_else(|p| p.into_inner()).push(Value::Atom(a)),
                Ok(Executed::Value(v)) => done.lock().unwrap_or_else(|p| p.into_inner()).push(v),
                Err(e) => {
                    failed.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                    // The others stop taking work.
                    next.store(work.len(), Ordering::Relaxed);
                    return;
                }
            }
        })
    };
    std::thread::scope(|scope| -> Result<()> {
        let mut started = Vec::with_capacity(threads);
        let mut refused = None;
        for _ in 0..threads {
            match spawn_waited(scope, "atomweave:threaded", worker) {
                Ok(t) => started.push(t),
                Err(e) => {
                    refused = Some(bad(format!("cannot start a thread: {e}")));
                    break;
                }
            }
        }
        // Those started are waited for (and asked to stop when interrupted) either way.
        for t in started {
            if t.join_polled(&stop).is_err() {
                failed.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| bad("an ExecuteThreadedLink thread panicked".into()));
            }
        }
        refused.map_or(Ok(()), Err)
    })?;
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(Value::Queue(QueueValue::new(done.into_inner().unwrap_or_else(|p| p.into_inner()))))
}
