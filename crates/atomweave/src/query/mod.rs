//! The pattern matcher: executes the classic query links over an
//! [`AtomSpace`].
//!
//! [`execute`] is the one entry point every layer uses (the CLI's `query`,
//! Python's `execute_atom`, Scheme's `cog-execute!`, the server). It takes a
//! query link already in the space and returns what upstream returns:
//!
//! | link | result |
//! |---|---|
//! | `(GetLink VARDECL? BODY)` | a SetLink of groundings, added to the space: the atom itself for one variable, a ListLink per tuple (in declaration order) for several |
//! | `(BindLink VARDECL? BODY REWRITE)` | a SetLink of the distinct rewrites, each instantiated in the space |
//! | `(MeetLink ...)`, `(QueryLink ...)` | as Get and Bind, but a LinkValue of the results: no SetLink is added |
//! | `(SatisfactionLink VARDECL? BODY)` | `(stv 1 1)` when a grounding exists, else `(stv 0 1)` |
//! | `(DualLink TERM)` | a SetLink of the patterns in the space (links holding variables) that TERM grounds |
//! | arithmetic (`PlusLink` ...) | the NumberNode it computes from NumberNodes; a FloatValue where values flow in (StrengthOf, FloatValueOf ...) |
//! | `StrengthOfLink`, `ConfidenceOfLink`, `CountOfLink`, `FloatValueOfLink` | a FloatValue |
//! | `PutLink` | the body with the arguments in place of its variables; a SetLink of results for a SetLink of arguments; a DeleteLink body extracts what it names |
//! | `CondLink` | the value after the first condition that holds, executed; else the default |
//! | `DontExecLink` | its member, not executed |
//! | `SetTVLink`, `SetValueLink` | what the expression gives (a truth value evaluated or computed; a value executed), set on the atom |
//! | another executable link (SetValue, streams, ...) | an error naming its type: not run yet |
//! | any other atom (data) | itself |
//! | `ValueOfLink`, `TruthValueOfLink` | the value under the key (else the default given, else VoidValue); the truth value |
//! | `ExecutionOutputLink` | a grounded procedure's result (see [`grounded`]), or a Lambda or DefinedSchema applied to the arguments and executed |
//! | `EqualLink`, `GreaterThanLink`, `NotLink` ... | a truth value, as for Satisfaction |
//!
//! ```
//! use atomweave::query::{execute, Executed};
//! use atomweave::{sexpr, AtomSpace};
//! let space = AtomSpace::new();
//! let text = r#"(Inheritance (Concept "Ben") (Concept "human"))
//!               (Inheritance (Concept "Linas") (Concept "human"))
//!               (Get (Inheritance (Variable "$H") (Concept "human")))"#;
//! let atoms = sexpr::load_str(&mut &space, text).unwrap();
//! let Executed::Atom(set) = execute(&space, atoms[2]).unwrap() else { unreachable!() };
//! let expected = sexpr::load_str(&mut &space, r#"(Set (Concept "Ben") (Concept "Linas"))"#).unwrap();
//! assert_eq!(set, expected[0]);
//! ```
//!
//! Semantics, where upstream leaves a choice:
//! - Variables: VariableNode and GlobNode, declared by a VariableNode, a
//!   GlobNode, a TypedVariableLink, a VariableList or a VariableSet; with no
//!   declaration, the body's variables in order of first appearance. Type
//!   restrictions: TypeNode (exactly that type), TypeInhNode (that type or
//!   a subtype), TypeChoice of these, and IntervalLink `(Number lo hi)` for
//!   globs (hi < 0: no upper bound; a glob's default is 1 or more atoms).
//! - Body: one clause or an AndLink of clauses. A PresentLink's members are
//!   clauses that must be present; a plain clause is the same. AbsentLink:
//!   no grounding of its clause exists (its variables that no present clause
//!   binds are local to it). AlwaysLink: groundings are grouped by the values
//!   of the variables that do not occur in the Always clause; a group is
//!   kept only if every grounding in it satisfies the Always clause.
//!   OrLink/ChoiceLink of clauses: alternatives (the union of the results of
//!   each); a ChoiceLink inside a term matches any one of its members there.
//!   EqualLink, IdenticalLink, GreaterThanLink, LessThanLink, NotLink and
//!   And/Or of these are evaluated once their variables are grounded, with
//!   PlusLink, MinusLink, TimesLink, DivideLink over NumberNodes computed.
//! - A clause never grounds to the query itself: no variable is grounded by
//!   one of the query's own variables, or by a link that contains one; a
//!   clause without variables is present only if something besides the
//!   query holds its atom (else every such clause would hold trivially).
//! - QuoteLink matches its contents literally (variables inside are plain
//!   atoms) except under an UnquoteLink; LocalQuoteLink quotes just the link
//!   directly inside it (`(LocalQuote (And ...))` matches an AndLink).
//! - Unordered links match in every permutation; duplicate groundings count
//!   once. Ordered links may hold globs, each taking a run of members.
//! - A glob's grounding, where one atom is needed (a Get result, a rewrite's
//!   member position outside a link), is a ListLink of its run; inside a
//!   rewrite link it is spliced in.
//! - Every variable of a rewrite must be grounded by the body; bad queries
//!   are refused before anything is added. Limits, each a clear error: 64
//!   variables, 64 clauses that must be present at once, 4096 alternatives,
//!   nesting 256 deep.
//! - Variables that occur only in AbsentLinks are local to them: they are
//!   not part of the results.
//! - A variable that one alternative of an OrLink grounds and another does
//!   not stands for itself in the other's results, as upstream reports it.
//!
//! Large searches are split across the threads of the current rayon pool
//! (run `execute` inside `ThreadPool::install` to choose how many), with
//! the same results as one thread.
//!
//! A conjunction whose clauses close a cycle over their variables
//! (triangles, cliques, cycles) is searched by a worst-case-optimal join:
//! one variable at a time, each bound to the intersection of what the
//! clauses holding it allow, instead of one clause at a time. Others are
//! searched by backtracking over clauses. [`with_strategy`] forces either;
//! the groundings are the same (a condition is evaluated on the partial
//! groundings each search reaches: one that fails with an error on some
//! may fail under one search and not the other).
//!
//! A search may take time exponential in its pattern (unordered links try
//! every permutation; a link of shared members is evaluated at each
//! place): [`execute_until`] and [`with_limits`] give up at a deadline
//! with [`Error::TimedOut`]. A query stopped while it searches adds
//! nothing; a BindLink stopped while it builds its rewrites keeps those
//! built. A query finding more than [`Limits::max_groundings`] (16 M by
//! default) is refused.

mod beta;
mod collect;
mod eval;
mod filter;
mod flow;
mod free;
pub mod grounded;
mod join;
mod numeric;
mod parallel;
mod pattern;
mod scratch;
mod search;
mod stream;
mod unify;

type HashSet<T> = hashbrown::HashSet<T, foldhash::fast::RandomState>;
type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, TruthValue, Value};
pub use eval::{number_name, numbers_of};
pub use free::free_variables;
pub use join::{with_strategy, Strategy};
use pattern::{is_vardecl_type, Pattern};
use search::{Bindings, Bound, Flow, Grounding, Search, Val};

/// What executing an atom gives.
#[derive(Clone, Debug, PartialEq)]
pub enum Executed {
    /// An atom of the space (a SetLink of results, a NumberNode, ...).
    Atom(Handle),
    /// A value: a LinkValue of results, or a truth value.
    Value(Value),
}

/// What executing `h` gives, as one value (an atom is `Value::Atom`).
pub fn execute_value(space: &AtomSpace, h: Handle) -> Result<Value> {
    check_deadline()?;
    let _session = scratch::Session::enter();
    flow::execute(space, h)
}

/// The numbers a value stands for (a NumberNode's, a FloatValue's, a
/// truth value's strength and confidence, a one-member SetLink's), or an
/// error naming `at`, the atom that gave it.
pub fn value_numbers(space: &AtomSpace, v: &Value, at: Handle) -> Result<Vec<f64>> {
    Ok(flow::numbers(space, v, at)?.0)
}

/// Executes `query`, an atom of `space`: a query link (GetLink, BindLink,
/// MeetLink, QueryLink, SatisfactionLink, DualLink), arithmetic, or an
/// evaluatable link. See the [module documentation](self) for what each
/// returns. A bad query is an error, and adds nothing to the space.
///
/// Under [`with_limits`], it stops with [`Error::TimedOut`] at the deadline.
pub fn execute(space: &AtomSpace, query: Handle) -> Result<Executed> {
    check_deadline()?;
    let _session = scratch::Session::enter();
    run(space, query)
}

/// [`execute`], stopping with [`Error::TimedOut`] once `deadline` has passed.
pub fn execute_until(space: &AtomSpace, query: Handle, deadline: Instant) -> Result<Executed> {
    with_limits(Limits { deadline: Some(deadline), ..Limits::default() }, || execute(space, query))
}

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
        Limits { deadline: None, cancel: None, max_groundings: 1 << 24, interrupt: None }
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
    static NESTED: Cell<usize> = const { Cell::new(0) };
}

/// Most executions nested in one another: a definition that calls itself
/// without end stops here with an error rather than overflowing the stack.
const MAX_NESTED: usize = 256;

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
    let _session = scratch::Session::enter();
    f()
}

/// This thread's query limits.
pub(crate) fn limits() -> Limits {
    LIMITS.with_borrow(Limits::clone)
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

/// Evaluates `h` to a truth value, as upstream's `cog-evaluate!` and
/// `evaluate_atom` do: an EvaluationLink gives its GroundedPredicate's
/// verdict, or a DefinedPredicate's body applied to its arguments, or else
/// its own truth value; a DefinedPredicateNode, its definition's; Not, And,
/// Or and their Sequential forms combine their members' (stopping at the
/// first that decides); anything else, what executing it gives, which must
/// be a truth value.
pub fn evaluate(space: &AtomSpace, h: Handle) -> Result<TruthValue> {
    check_deadline()?;
    let _session = scratch::Session::enter();
    nested(|| {
        // Tail calls loop here instead of nesting: a definition that
        // recurses in its last step (a loop) runs in constant depth.
        let mut h = h;
        // The names followed since the last step that evaluated something:
        // one met again is a definition by itself (p as p, p as q as p),
        // which would loop doing nothing, for ever.
        let mut names: Vec<Handle> = Vec::new();
        loop {
            let (next, named) = match evaluate_one(space, h)? {
                Tail::Done(tv) => return Ok(tv),
                Tail::Call(next) => (next, false),
                Tail::Name(next) => (next, true),
            };
            if !named {
                names.clear();
            } else if names.contains(&h) {
                return Err(bad(format!("{} is defined by itself: evaluating it would never end", describe(space, h))));
            } else {
                names.push(h);
            }
            if expired() {
                return Err(Error::TimedOut);
            }
            h = next;
        }
    })
}

/// An evaluation's verdict, or the atom whose verdict is its own (a tail
/// call): after evaluating something, or as what a name stands for (a
/// definition, a ContinuationLink's member), with nothing evaluated.
enum Tail {
    Done(TruthValue),
    Call(Handle),
    Name(Handle),
}

impl From<TruthValue> for Tail {
    fn from(tv: TruthValue) -> Tail {
        Tail::Done(tv)
    }
}

fn evaluate_one(space: &AtomSpace, h: Handle) -> Result<Tail> {
    let t = type_of(space, h)?;
    let out = space.outgoing(h).unwrap_or(&[]);
    let truth = |b: bool| Ok(Tail::Done(crisp(b)));
    let done = |tv: Result<TruthValue>| tv.map(Tail::Done);
    match t {
        types::DEFINED_PREDICATE_NODE => Ok(Tail::Name(beta::definition(space, h)?)),
        // A Put of a predicate: the predicate applied to the arguments.
        types::PUT_LINK if out.len() == 2 && type_of(space, out[0]).is_ok_and(|p| p == types::DEFINED_PREDICATE_NODE || p == types::LAMBDA_LINK) => {
            done(evaluate_applied(space, out[0], &out[1..]))
        }
        // Upstream's marked recursive step: its member's verdict, in the
        // same frame of the loop (a tail call).
        types::CONTINUATION_LINK => match *out {
            [m] => Ok(Tail::Name(m)),
            _ => Err(bad(format!("{} must hold one atom", describe(space, h)))),
        },
        // The last member of a sequence decides when the others did not.
        types::SEQUENTIAL_AND_LINK | types::SEQUENTIAL_OR_LINK if !out.is_empty() && !has_variables(space, h)? => {
            let any = t == types::SEQUENTIAL_OR_LINK;
            for &m in &out[..out.len() - 1] {
                if holds(evaluate(space, m)?) == any {
                    return truth(any);
                }
            }
            Ok(Tail::Call(out[out.len() - 1]))
        }
        // A predicate that is code: its definition or lambda applied to
        // the arguments, or a pattern over its free variables in order.
        types::EVALUATION_LINK if !out.is_empty() && space.get_type(out[0]).is_some_and(|p| p == types::DEFINED_PREDICATE_NODE || p.is_link()) => {
            done(evaluate_applied(space, out[0], &out[1..]))
        }
        types::EVALUATION_LINK if !is_grounded_evaluation(space, h) => Ok(space.get_tv(h).ok_or(Error::InvalidHandle(h))?.into()),
        // (FormulaPredicate STRENGTH [CONFIDENCE]): each formula's first
        // number (a Lambda around one is its body).
        types::FORMULA_PREDICATE_LINK => {
            // The arithmetic recurses over the formulas.
            pattern::check_depth(space, h)?;
            let first = |f: Handle| -> Result<f64> {
                let body = match (space.get_type(f), space.outgoing(f).unwrap_or(&[])) {
                    (Some(types::LAMBDA_LINK), &[b]) => b,
                    _ => f,
                };
                let (v, _) = eval::flow_numbers(space, body)?;
                v.first().copied().ok_or_else(|| bad(format!("{} computes no number", describe(space, f))))
            };
            match *out {
                [s] => Ok(TruthValue::simple(first(s)?, 1.0).into()),
                [s, c] => Ok(TruthValue::simple(first(s)?, first(c)?).into()),
                _ => Err(bad(format!("{} must hold a strength formula and a confidence formula", describe(space, h)))),
            }
        }
        // A pattern of its own: is there a grounding (for a closed one, is
        // its atom held by something besides it)?
        types::PRESENT_LINK | types::ABSENT_LINK | types::ALWAYS_LINK => {
            let pat = Pattern::compile(space, h, None, h, &[])?;
            truth(!Search { space, pat: &pat }.groundings(true)?.is_empty())
        }
        // Comparisons, once nothing is left to ground.
        types::EQUAL_LINK | types::IDENTICAL_LINK | types::GREATER_THAN_LINK | types::LESS_THAN_LINK if !has_variables(space, h)? => {
            let pat = Pattern::compile(space, h, None, h, &[])?;
            truth(eval::truth(space, &pat, h, &Vec::new())?)
        }
        // Checks on the members themselves.
        types::IS_CLOSED_LINK => {
            for &m in out {
                if has_variables(space, m)? {
                    return truth(false);
                }
            }
            truth(true)
        }
        types::IS_TRUE_LINK | types::IS_FALSE_LINK => {
            let want = crisp(t == types::IS_TRUE_LINK);
            truth(out.iter().all(|&m| space.get_tv(m) == Some(want)))
        }
        // No two members give one value.
        types::EXCLUSIVE_LINK => {
            let mut seen: Vec<Value> = Vec::with_capacity(out.len());
            for &m in out {
                let v = flow::execute(space, m)?;
                if seen.contains(&v) {
                    return truth(false);
                }
                seen.push(v);
            }
            truth(true)
        }
        // Their members run for what they do; the verdict is fixed.
        types::TRUE_LINK | types::FALSE_LINK => {
            for &m in out {
                let mt = type_of(space, m)?;
                if mt.is_a(types::EVALUATABLE_LINK) || mt == types::DEFINED_PREDICATE_NODE {
                    evaluate(space, m)?;
                } else {
                    run(space, m)?;
                }
            }
            truth(t == types::TRUE_LINK)
        }
        types::PARALLEL_LINK => {
            parallel::start(space, out)?;
            truth(true)
        }
        types::THREAD_JOIN_LINK => truth(parallel::join(space, out)?),
        types::NOT_LINK => match *out {
            [m] => truth(!holds(evaluate(space, m)?)),
            _ => Err(bad(format!("{} must hold one atom", describe(space, h)))),
        },
        types::AND_LINK | types::SEQUENTIAL_AND_LINK | types::OR_LINK | types::SEQUENTIAL_OR_LINK if !has_variables(space, h)? => {
            done(combine(t, out, |m| evaluate(space, m)))
        }
        _ => match run(space, h)? {
            Executed::Value(Value::Truth(tv)) => Ok(tv.into()),
            // A PromisePredicate's FormulaTruthValue: its reading.
            Executed::Value(Value::Stream(s)) if s.stream_type() == types::FORMULA_TRUTH_VALUE => match s.sample()? {
                Value::Truth(tv) => Ok(tv.into()),
                _ => Err(bad(format!("{} gives no truth value", describe(space, h)))),
            },
            // Code that gives code (a ValueOf of a stored formula): that is evaluated.
            Executed::Atom(a) if a != h && space.get_type(a).is_some_and(|at| at.is_a(types::EVALUATABLE_LINK) || at == types::DEFINED_PREDICATE_NODE) => {
                Ok(Tail::Call(a))
            }
            _ => Err(bad(format!("{} is not evaluatable: it gives no truth value", describe(space, h)))),
        },
    }
}

/// Predicate `pred` (a DefinedPredicate, a Lambda or a pattern) applied
/// to `args` (a lone ListLink's members, or the atoms) and evaluated.
fn evaluate_applied(space: &AtomSpace, pred: Handle, args: &[Handle]) -> Result<TruthValue> {
    let (body, map) = beta::bindings(space, beta::definition(space, pred)?, arguments(space, args))?;
    evaluate_bound(space, body, &map)
}

/// Schema `schema` (grounded, a DefinedSchema or a Lambda) applied to
/// `args` (a lone ListLink's members, or the atoms) and executed.
fn execute_applied(space: &AtomSpace, schema: Handle, args: &[Handle]) -> Result<Executed> {
    let args = arguments(space, args);
    if type_of(space, schema)?.is_a(types::GROUNDED_SCHEMA_NODE) {
        return Ok(match grounded::call(space, schema, args)? {
            Value::Atom(h) => Executed::Atom(h),
            v => Executed::Value(v),
        });
    }
    let def = beta::definition(space, schema)?;
    // A predicate's body (Present, And, a comparison...): its verdict, as
    // upstream executes an evaluatable atom to its truth value.
    let body = match (space.get_type(def), space.outgoing(def).unwrap_or(&[])) {
        (Some(types::LAMBDA_LINK), [.., body]) => Some(*body),
        _ => None,
    };
    if body.and_then(|b| space.get_type(b)).is_some_and(|bt| bt.is_a(types::EVALUATABLE_LINK) && bt != types::EVALUATION_LINK) {
        return Ok(Executed::Value(Value::Truth(evaluate_applied(space, schema, args)?)));
    }
    let reduced = beta::apply(space, def, args)?;
    run(space, reduced)
}

/// Evaluates `h` with its variables bound by `map`. Presence is looked up
/// (`Present X` holds if the space holds X with the arguments in place,
/// `Absent X` if it does not): nothing is built for it. Anything else is
/// built in a scratch frame over the space, as upstream's transient space,
/// and evaluated there.
fn evaluate_bound(space: &AtomSpace, h: Handle, map: &HashMap<Handle, Handle>) -> Result<TruthValue> {
    nested(|| {
        let t = type_of(space, h)?;
        let out = space.outgoing(h).unwrap_or(&[]);
        let present = |m: Handle| beta::lookup(space, m, map).map(|x| x.is_some());
        match t {
            types::PRESENT_LINK | types::ABSENT_LINK => {
                let want = t == types::PRESENT_LINK;
                for &m in out {
                    if present(m)? != want {
                        return Ok(crisp(false));
                    }
                }
                Ok(crisp(true))
            }
            types::NOT_LINK => match *out {
                [m] => Ok(crisp(!holds(evaluate_bound(space, m, map)?))),
                _ => Err(bad(format!("{} must hold one atom", describe(space, h)))),
            },
            types::AND_LINK | types::SEQUENTIAL_AND_LINK | types::OR_LINK | types::SEQUENTIAL_OR_LINK => combine(t, out, |m| evaluate_bound(space, m, map)),
            _ => {
                let scratch = scratch::Scratch::over(space)?;
                let reduced = beta::substitute(&scratch, h, map)?;
                evaluate(&scratch, reduced)
            }
        }
    })
}

/// An And or Or (or a sequential one) of `members`, evaluated in order by
/// `eval` until one decides.
fn combine(t: Type, members: &[Handle], mut eval: impl FnMut(Handle) -> Result<TruthValue>) -> Result<TruthValue> {
    let any = matches!(t, types::OR_LINK | types::SEQUENTIAL_OR_LINK);
    for &m in members {
        if holds(eval(m)?) == any {
            return Ok(crisp(any));
        }
    }
    Ok(crisp(!any))
}

/// Upstream's crisp reading of a truth value: a mean of at least 0.5.
fn holds(tv: TruthValue) -> bool {
    tv.mean() >= 0.5
}

/// Does `h` hold free variables (then it is a pattern for the matcher)?
fn has_variables(space: &AtomSpace, h: Handle) -> Result<bool> {
    Ok(!free_variables(space, h)?.is_empty())
}

/// Does `v` fit type specification `spec`: a TypeNode (that type), a
/// TypeInh (it or a subtype), a TypeCoInh (it or a supertype), a
/// TypeChoice (any member), a Signature (the shape it gives, member by
/// member) or a DefinedType (its definition)? Upstream's
/// `cog-value-is-type?`.
pub fn value_is_type(space: &AtomSpace, spec: Handle, v: &Value) -> Result<bool> {
    filter::type_ok(space, spec, v, 0)
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

fn run(space: &AtomSpace, query: Handle) -> Result<Executed> {
    nested(|| run_one(space, query))
}

fn run_one(space: &AtomSpace, query: Handle) -> Result<Executed> {
    let t = space.get_type(query).ok_or(Error::InvalidHandle(query))?;
    let out = space.outgoing(query).unwrap_or(&[]);
    pattern::check_depth(space, query)?;
    match t {
        types::GET_LINK | types::MEET_LINK | types::SATISFACTION_LINK => {
            let (vardecl, body) = match *out {
                [body] => (None, body),
                [decl, body] => (Some(decl), body),
                _ => return Err(bad(format!("{} must hold a body, after an optional variable declaration", describe(space, query)))),
            };
            if unify::applies(space, body) {
                let sols = unify::solve(space, &declarations(space, vardecl, body)?, body)?;
                if t == types::SATISFACTION_LINK {
                    return Ok(Executed::Value(Value::Truth(crisp(!sols.is_empty()))));
                }
                let vars = declarations(space, vardecl, body)?;
                let get = t == types::GET_LINK;
                let found = sols.iter().map(|m| solved_tuple(space, &vars, m, get)).collect::<Result<Vec<_>>>()?;
                return deliver(space, get, found);
            }
            let pat = Pattern::compile(space, query, vardecl, body, &[])?;
            let search = Search { space, pat: &pat };
            // Anchored: every grounding goes on the anchor, in a MemberLink
            // (several variables' in a ListLink, in declaration order).
            if let Some(anchor) = pat.anchor {
                let results = sorted(search.groundings(false)?);
                let wanted: Vec<usize> = (0..pat.vars.len()).filter(|&i| pat.grounded & (1 << i) != 0 && !pat.vars[i].hidden).collect();
                for g in &results {
                    let Value::Atom(member) = tuple(space, &pat, &wanted, g, true)? else {
                        return Err(bad(format!("{}: a grounding that is a value cannot go on an anchor", describe(space, query))));
                    };
                    space.add_link(types::MEMBER_LINK, &[member, anchor])?;
                }
                return Ok(match t {
                    types::SATISFACTION_LINK => Executed::Value(Value::Truth(crisp(!results.is_empty()))),
                    _ => Executed::Atom(anchor),
                });
            }
            if t == types::SATISFACTION_LINK {
                let found = !search.groundings(true)?.is_empty();
                return Ok(Executed::Value(Value::Truth(crisp(found))));
            }
            let results = sorted(search.groundings(false)?);
            if pat.group.is_some() && t != types::MEET_LINK {
                return Err(bad(format!("{}: a GroupLink groups the results of a MeetLink or a QueryLink", describe(space, query))));
            }
            let wanted: Vec<usize> = (0..pat.vars.len()).filter(|&i| pat.grounded & (1 << i) != 0 && !pat.vars[i].hidden).collect();
            // A Get's tuple is a ListLink of the space; a Meet's, a LinkValue.
            let get = t == types::GET_LINK;
            let found = results.iter().map(|g| tuple(space, &pat, &wanted, g, get)).collect::<Result<Vec<_>>>()?;
            if let Some(group) = &pat.group {
                return deliver(space, false, grouped(group, &results, found));
            }
            deliver(space, get, found)
        }
        types::BIND_LINK | types::QUERY_LINK => {
            let declared = out.first().map(|&d| type_of(space, d)).transpose()?.is_some_and(is_vardecl_type);
            let (vardecl, body, rewrites) = match out {
                [decl, body, rewrites @ ..] if declared && !rewrites.is_empty() => (Some(*decl), *body, rewrites),
                [body, rewrites @ ..] if !declared && !rewrites.is_empty() => (None, *body, rewrites),
                _ => return Err(bad(format!("{} must hold a body and a rewrite, after an optional variable declaration", describe(space, query)))),
            };
            let bind = t == types::BIND_LINK;
            if unify::applies(space, body) {
                let sols = unify::solve(space, &declarations(space, vardecl, body)?, body)?;
                let mut found = Vec::with_capacity(sols.len());
                for m in &sols {
                    let built = rewrites.iter().map(|&r| run_rewrite(space, beta::substitute_consuming(space, r, m)?, bind)).collect::<Result<Vec<_>>>()?;
                    let built = built.into_iter().flatten().collect();
                    add_rewrites(&mut found, built, bind);
                }
                return deliver(space, bind, found);
            }
            let pat = Pattern::compile(space, query, vardecl, body, rewrites)?;
            if pat.group.is_some() && bind {
                return Err(bad(format!("{}: a GroupLink groups the results of a MeetLink or a QueryLink", describe(space, query))));
            }
            let results = sorted(Search { space, pat: &pat }.groundings(false)?);
            let mut found = Vec::with_capacity(results.len());
            for g in &results {
                let b: Bindings = g.iter().map(|v| v.as_ref().map(Bound::from)).collect();
                let built = pat.rewrites.iter().map(|&r| rewrite(space, &pat, r, &b, bind)).collect::<Result<Vec<_>>>()?;
                // Not a BindLink here when grouped: one result per grounding.
                add_rewrites(&mut found, built.into_iter().flatten().collect(), bind);
            }
            if let Some(group) = &pat.group {
                return deliver(space, false, grouped(group, &results, found));
            }
            deliver(space, bind, found)
        }
        types::DUAL_LINK => {
            let [term] = *out else { return Err(bad(format!("{} must hold one term", describe(space, query)))) };
            deliver(space, true, dual(space, query, term)?.into_iter().map(Value::Atom).collect())
        }
        _ if eval::is_arithmetic(t) => {
            // Computed whole, so a bad member adds no partial results.
            let (v, nodes) = eval::flow_numbers(space, query)?;
            Ok(if nodes { Executed::Atom(space.add_node(types::NUMBER_NODE, &eval::number_name(&v))?) } else { Executed::Value(Value::float(v)) })
        }
        types::STRENGTH_OF_LINK | types::CONFIDENCE_OF_LINK | types::COUNT_OF_LINK | types::FLOAT_VALUE_OF_LINK => {
            Ok(Executed::Value(Value::float(eval::flow_numbers(space, query)?.0)))
        }
        types::EXECUTION_OUTPUT_LINK => {
            let [schema, list] = *out else { return Err(bad(format!("{} must hold a schema and its arguments", describe(space, query)))) };
            execute_applied(space, schema, &[list])
        }
        // The value under a key; else the default given after it; else VoidValue, as upstream.
        types::VALUE_OF_LINK | types::BOOL_VALUE_OF_LINK => {
            let (atom, key, default) = match *out {
                [a, k] => (a, k, None),
                [a, k, d] => (a, k, Some(d)),
                _ => return Err(bad(format!("{} must hold an atom and a key, and optionally a default", describe(space, query)))),
            };
            Ok(match (space.get_value(atom, key), default) {
                (Some(Value::Atom(h)), _) => Executed::Atom(h),
                (Some(v), _) => Executed::Value(v),
                (None, Some(d)) => Executed::Atom(d),
                (None, None) => Executed::Value(Value::Void),
            })
        }
        types::EXECUTE_THREADED_LINK => Ok(Executed::Value(parallel::execute_threaded(space, query)?)),
        types::PUT_LINK => {
            let (results, set_args) = beta::put(space, query)?;
            let kept: Vec<Handle> = results.iter().flatten().copied().collect();
            match (set_args, kept.as_slice()) {
                (true, _) => {
                    let mut ran = Vec::with_capacity(kept.len());
                    for &r in &kept {
                        ran.push(match run_reduced(space, r)? {
                            Executed::Atom(h) => h,
                            Executed::Value(_) => {
                                return Err(bad(format!("{}: a member of its set of results gives a value, not an atom", describe(space, query))))
                            }
                        });
                    }
                    Ok(Executed::Atom(space.add_link(types::SET_LINK, &ran)?))
                }
                (false, [one]) => run_reduced(space, *one),
                (false, _) => Ok(Executed::Value(Value::Void)),
            }
        }
        // (SetTV ATOM EXPR): EXPR's truth value (evaluated, or numbers
        // [strength confidence] computed) set on ATOM, and given; a
        // PromisePredicate's FormulaTruthValue is set as itself, run at each
        // reading. (SetTV ATOM PREDICATE ARGS...): a FormulaTruthValue of
        // the predicate applied to the arguments, as upstream's.
        types::SET_TV_LINK => {
            let set_stream = |stream: crate::StreamValue| -> Result<Executed> {
                space.set_tv_stream(out[0], stream.clone())?;
                Ok(Executed::Value(Value::Stream(stream)))
            };
            let expr = match *out {
                [_, expr] => expr,
                [_, _, _, ..] => {
                    let code = space.add_link(types::EVALUATION_LINK, &out[1..])?;
                    return set_stream(crate::StreamValue::computed(types::FORMULA_TRUTH_VALUE, space, vec![code])?);
                }
                _ => {
                    return Err(bad(format!(
                        "{} must hold an atom and a truth value's expression, or an atom, a predicate and its arguments",
                        describe(space, query)
                    )))
                }
            };
            let et = type_of(space, expr)?;
            if et == types::PROMISE_PREDICATE_LINK {
                let Value::Stream(stream) = flow::execute(space, expr)? else { unreachable!("a PromisePredicate gives a stream") };
                return set_stream(stream);
            }
            let tv = if eval::is_arithmetic(et) || et.is_a(types::VALUE_OF_LINK) {
                match eval::flow_numbers(space, expr)?.0[..] {
                    [s] => TruthValue::simple(s, 1.0),
                    [s, c] => TruthValue::simple(s, c),
                    _ => return Err(bad(format!("{}: a truth value is one or two numbers", describe(space, expr)))),
                }
            } else {
                evaluate(space, expr)?
            };
            space.set_tv(out[0], tv)?;
            Ok(Executed::Value(Value::Truth(tv)))
        }
        // (SetValue ATOM KEY EXPR): what EXPR executes to (data: itself),
        // set on ATOM under KEY, and given. (SetValue ATOM KEY SCHEMA
        // ARGS): the schema applied to the arguments.
        types::SET_VALUE_LINK => {
            let (atom, key, result) = match *out {
                [atom, key, expr] => (atom, key, run(space, expr)?),
                // A stream over the schema's application, run at each
                // reading: numbers (a FormulaStream) if the arguments compute
                // numbers, else a FutureStream.
                [atom, key, schema, args] => {
                    let call = space.add_link(types::EXECUTION_OUTPUT_LINK, &[schema, args])?;
                    let numeric = type_of(space, args)?.is_a(types::NUMERIC_OUTPUT_LINK);
                    let kind = if numeric { types::FORMULA_STREAM } else { types::FUTURE_STREAM };
                    (atom, key, Executed::Value(Value::Stream(crate::StreamValue::computed(kind, space, vec![call])?)))
                }
                _ => return Err(bad(format!("{} must hold an atom, a key and a value's expression (or a schema and its arguments)", describe(space, query)))),
            };
            let v = match result {
                Executed::Atom(h) => Value::Atom(h),
                Executed::Value(v) => v,
            };
            space.set_value(atom, key, v.clone())?;
            Ok(match v {
                Value::Atom(h) => Executed::Atom(h),
                v => Executed::Value(v),
            })
        }
        // (Cond C1 V1 C2 V2 ... [DEFAULT]): the value after the first
        // condition that holds, executed; else the default; else nothing.
        types::COND_LINK => {
            for pair in out.chunks(2) {
                match *pair {
                    [cond, value] if holds(evaluate(space, cond)?) => return run(space, value),
                    [_, _] => {}
                    [default] => return run(space, default),
                    _ => unreachable!("chunks of two"),
                }
            }
            Ok(Executed::Value(Value::Void))
        }
        types::TRUTH_VALUE_OF_LINK => {
            let [atom] = *out else { return Err(bad(format!("{} must hold one atom", describe(space, query)))) };
            Ok(Executed::Value(Value::Truth(space.get_tv(atom).ok_or(Error::InvalidHandle(atom))?)))
        }
        types::EVALUATION_LINK if is_grounded_evaluation(space, query) => {
            Ok(Executed::Value(Value::Truth(grounded::call_predicate(space, out[0], arguments(space, &out[1..]))?)))
        }
        types::EQUAL_LINK
        | types::IDENTICAL_LINK
        | types::GREATER_THAN_LINK
        | types::LESS_THAN_LINK
        | types::NOT_LINK
        | types::AND_LINK
        | types::OR_LINK
        | types::SEQUENTIAL_AND_LINK
        | types::SEQUENTIAL_OR_LINK
        | types::TRUE_LINK
        | types::FALSE_LINK => {
            if has_variables(space, query)? {
                return Err(bad(format!("{} has free variables: put it in a query to ground them", describe(space, query))));
            }
            Ok(Executed::Value(Value::Truth(evaluate(space, query)?)))
        }
        _ if flow::is_flow(t) || numeric::is_numeric(t) || collect::is_collect(t) => Ok(match flow::execute(space, query)? {
            Value::Atom(h) => Executed::Atom(h),
            v => Executed::Value(v),
        }),
        types::VARDECL_OF_LINK | types::PREMISE_OF_LINK | types::CONCLUSION_OF_LINK => Ok(Executed::Atom(beta::rule_part(space, query)?)),
        types::IS_CLOSED_LINK | types::IS_TRUE_LINK | types::IS_FALSE_LINK | types::EXCLUSIVE_LINK | types::PARALLEL_LINK | types::THREAD_JOIN_LINK => {
            Ok(Executed::Value(Value::Truth(evaluate(space, query)?)))
        }
        // Its member, not executed.
        types::DONT_EXEC_LINK => match *out {
            [m] => Ok(Executed::Atom(m)),
            _ => Err(bad(format!("{} must hold one atom", describe(space, query)))),
        },
        // Code the engine does not run yet: an error that names it, never
        // the link given back as if it were its result.
        _ if t.is_a(types::EXECUTABLE_LINK) => Err(Error::Query(format!("executing {} is not supported yet ({})", t.name(), describe(space, query)))),
        // Data executes to itself, as upstream's.
        _ => Ok(Executed::Atom(query)),
    }
}

/// One grounding's rewrites among the results: a Bind's all go into its
/// SetLink; a Query's several are one LinkValue.
fn add_rewrites(found: &mut Vec<Value>, built: Vec<Value>, bind: bool) {
    if built.len() == 1 || bind {
        found.extend(built);
    } else {
        found.push(Value::link(built));
    }
}

/// A rewrite built for one grounding; a function or a PutLink is then
/// run, as upstream's instantiator does. A BindLink's results go in a
/// SetLink, so they must be atoms. `None`: a DeleteLink, which deletes.
fn rewrite(space: &AtomSpace, pat: &Pattern, r: pattern::TermId, b: &Bindings<'_>, bind: bool) -> Result<Option<Value>> {
    run_rewrite(space, eval::instantiate(space, pat, r, b)?, bind)
}

/// A rewrite built: a function or a PutLink is run, and so is a function
/// it gives (a PutLink of a LambdaLink reduces to the lambda's body). A
/// DeleteLink extracts its members (recursively, as upstream's) and itself,
/// and gives nothing.
fn run_rewrite(space: &AtomSpace, built: Handle, bind: bool) -> Result<Option<Value>> {
    if space.get_type(built) == Some(types::DELETE_LINK) {
        let members = space.outgoing(built).unwrap_or(&[]).to_vec();
        let _ = space.extract(built, false);
        for m in members {
            // Gone already, or a variable left open: as upstream, no error.
            if !has_variables(space, m)? {
                let _ = space.extract(m, true);
            }
        }
        return Ok(None);
    }
    let runs = |h: Handle| space.get_type(h).is_some_and(|t| t.is_a(types::FUNCTION_LINK) || t == types::PUT_LINK);
    if !runs(built) {
        return Ok(Some(Value::Atom(built)));
    }
    let value = |e: Executed| match e {
        Executed::Atom(h) => Value::Atom(h),
        Executed::Value(v) => v,
    };
    let mut result = value(run(space, built)?);
    for _ in 0..MAX_NESTED {
        match result {
            Value::Atom(h) if h != built && runs(h) => result = value(run(space, h)?),
            _ => break,
        }
    }
    match result {
        Value::Atom(h) => Ok(Some(Value::Atom(h))),
        v if bind => {
            Err(bad(format!("a BindLink's rewrite {} gives a {}, not an atom: a QueryLink gives values", describe(space, built), v.value_type().name())))
        }
        v => Ok(Some(v)),
    }
}

/// Is `h` an EvaluationLink of a GroundedPredicateNode (a call, evaluated
/// rather than matched)?
pub(crate) fn is_grounded_evaluation(space: &AtomSpace, h: Handle) -> bool {
    space.outgoing(h).and_then(|out| out.first()).and_then(|&p| space.get_type(p)).is_some_and(|t| t.is_a(types::GROUNDED_PREDICATE_NODE))
}

/// A grounded procedure's arguments: the members of a lone ListLink (the
/// usual form), else the atoms themselves.
fn arguments<'a>(space: &'a AtomSpace, args: &'a [Handle]) -> &'a [Handle] {
    match *args {
        [list] if space.get_type(list) == Some(types::LIST_LINK) => space.outgoing(list).unwrap_or(&[]),
        _ => args,
    }
}

fn crisp(b: bool) -> TruthValue {
    TruthValue::simple(if b { 1.0 } else { 0.0 }, 1.0)
}

fn type_of(space: &AtomSpace, h: Handle) -> Result<Type> {
    space.get_type(h).ok_or(Error::InvalidHandle(h))
}

/// Groundings in a stable order, so results come out the same on any number of threads.
fn sorted(found: HashSet<Grounding>) -> Vec<Grounding> {
    let mut v: Vec<Grounding> = found.into_iter().collect();
    v.sort_unstable();
    v
}

/// One result: the grounding of one variable; for several, a ListLink of
/// them added to the space (`as_atom`) or a LinkValue.
fn tuple(space: &AtomSpace, pat: &Pattern, wanted: &[usize], g: &Grounding, as_atom: bool) -> Result<Value> {
    // A variable this grounding's alternative does not ground: itself.
    let one = |i: usize| match &g[i] {
        Some(Val::One(h)) => Ok(*h),
        Some(Val::Run(r)) => space.add_link(types::LIST_LINK, r),
        None => Ok(pat.vars[i].handle),
    };
    match wanted {
        [i] => one(*i).map(Value::Atom),
        _ => {
            let members = wanted.iter().map(|&i| one(i)).collect::<Result<Vec<_>>>()?;
            if as_atom {
                return space.add_link(types::LIST_LINK, &members).map(Value::Atom);
            }
            Ok(Value::link(members.into_iter().map(Value::Atom).collect::<Vec<_>>()))
        }
    }
}

/// Results grouped as a GroupLink asks: one LinkValue per group of
/// groundings that agree on the group's variables (first met first), its
/// results without repeats, kept if the group's groundings number from its
/// least to its most.
fn grouped(group: &pattern::Group, groundings: &[Grounding], found: Vec<Value>) -> Vec<Value> {
    let mut order: Vec<Vec<Option<Val>>> = Vec::new();
    let mut members: HashMap<Vec<Option<Val>>, (usize, Vec<Value>)> = HashMap::default();
    for (g, v) in groundings.iter().zip(found) {
        let key: Vec<Option<Val>> = group.vars.iter().map(|&i| g[i].clone()).collect();
        let entry = members.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, Vec::new())
        });
        entry.0 += 1;
        if !entry.1.contains(&v) {
            entry.1.push(v);
        }
    }
    order.into_iter().filter_map(|k| members.remove(&k)).filter(|(n, _)| (group.lo..=group.hi).contains(n)).map(|(_, vs)| Value::link(vs)).collect()
}

/// A query's variables with their declarations, in order: declared, or
/// the body's free ones.
fn declarations(space: &AtomSpace, vardecl: Option<Handle>, body: Handle) -> Result<Vec<(Handle, Handle)>> {
    let Some(d) = vardecl else { return Ok(free_variables(space, body)?.into_iter().map(|v| (v, v)).collect()) };
    let decls = beta::declarations(space, d);
    if let Some(&(v, _)) = decls.iter().find(|&&(v, _)| !matches!(space.get_type(v), Some(types::VARIABLE_NODE | types::GLOB_NODE))) {
        return Err(bad(format!("{} declares {}, which is not a variable", describe(space, d), describe(space, v))));
    }
    Ok(decls)
}

/// One result of a solved body: a variable's atom, or for several, a
/// ListLink of them (`as_atom`) or a LinkValue.
fn solved_tuple(space: &AtomSpace, vars: &[(Handle, Handle)], m: &HashMap<Handle, Handle>, as_atom: bool) -> Result<Value> {
    let atoms =
        vars.iter().map(|(v, _)| m.get(v).copied().ok_or_else(|| bad(format!("variable {} is not bound", describe(space, *v))))).collect::<Result<Vec<_>>>()?;
    Ok(match atoms[..] {
        [one] => Value::Atom(one),
        _ if as_atom => Value::Atom(space.add_link(types::LIST_LINK, &atoms)?),
        _ => Value::link(atoms.into_iter().map(Value::Atom).collect::<Vec<_>>()),
    })
}

/// A SetLink of the results added to the space (they are atoms), or a
/// QueueValue of them, as upstream's Meet and Query give.
fn deliver(space: &AtomSpace, as_set: bool, mut found: Vec<Value>) -> Result<Executed> {
    // Atoms and LinkValues of atoms are keyed by their handles (a
    // LinkValue's after a marker no handle has); other values (computed
    // by a rewrite) are all kept.
    let key = |v: &Value| -> Option<Vec<Handle>> {
        match v {
            Value::Atom(h) => Some(vec![*h]),
            Value::Link(vs) => std::iter::once(Some(Handle(u32::MAX))).chain(vs.iter().map(|x| if let Value::Atom(h) = x { Some(*h) } else { None })).collect(),
            _ => None,
        }
    };
    let mut seen = HashSet::default();
    found.retain(|v| key(v).is_none_or(|k| seen.insert(k)));
    if as_set {
        let atoms: Vec<Handle> = found.iter().filter_map(|v| if let Value::Atom(h) = v { Some(*h) } else { None }).collect();
        return Ok(Executed::Atom(space.add_link(types::SET_LINK, &atoms)?));
    }
    Ok(Executed::Value(Value::Queue(crate::QueueValue::new(found))))
}

/// The patterns in the space (links of `term`'s type holding variables)
/// that `term` grounds, each matched whole against it.
fn dual(space: &AtomSpace, query: Handle, term: Handle) -> Result<Vec<Handle>> {
    let t = type_of(space, term)?;
    let own = pattern::own_links(space, &[query]);
    let mut holders: HashSet<Handle> = HashSet::default();
    let mut work: Vec<Handle> = space.handles_by_type(types::VARIABLE_NODE, true).collect();
    while let Some(h) = work.pop() {
        for l in space.incoming(h).into_iter().flatten() {
            if holders.insert(l) {
                work.push(l);
            }
        }
    }
    let mut found = Vec::new();
    for p in holders.into_iter().filter(|&p| p != term && !own.contains(&p) && space.get_type(p) == Some(t)) {
        let Ok((pat, root)) = Pattern::compile_term(space, p) else { continue };
        if pat.vars.is_empty() {
            continue;
        }
        let mut b: Bindings = vec![None; pat.vars.len()];
        let matched = with_stack(search_stack(pat.match_size), || (Search { space, pat: &pat }).unify(root, term, &mut b, &mut |_| Flow::Stop));
        if matched == Flow::Stop {
            found.push(p);
        }
    }
    check_deadline()?;
    found.sort_unstable();
    Ok(found)
}

/// Does `h` hold (or is it) an atom that `wanted` picks? A walk with a
/// stack, each atom once: shared members are looked at once.
pub(crate) fn holds_any(space: &AtomSpace, h: Handle, wanted: impl Fn(Handle) -> bool) -> bool {
    let mut seen: HashSet<Handle> = HashSet::default();
    let mut todo = vec![h];
    while let Some(x) = todo.pop() {
        if wanted(x) {
            return true;
        }
        if seen.insert(x) {
            todo.extend_from_slice(space.outgoing(x).unwrap_or(&[]));
        }
    }
    false
}

/// A query error.
pub(crate) fn bad(msg: String) -> Error {
    Error::Query(msg)
}

/// An atom as the error messages show it: its Atomese, cut short.
pub(crate) fn describe(space: &AtomSpace, h: Handle) -> String {
    crate::sexpr::atom_prefix(space, h, crate::sexpr::Form::Wire, 120)
}

/// What a PutLink's reduction runs to, as upstream's: executable code is
/// run, but for reads of values (ValueOf and its kin, given as code) and
/// DontExec. A SetValue is run, as upstream's table example expects of a
/// Put over a schema that sets a column.
fn run_reduced(space: &AtomSpace, h: Handle) -> Result<Executed> {
    let t = type_of(space, h)?;
    if t.is_a(types::EXECUTABLE_LINK) && !t.is_a(types::VALUE_OF_LINK) && t != types::DONT_EXEC_LINK {
        return execute(space, h);
    }
    Ok(Executed::Atom(h))
}
