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
mod found;
mod free;
pub mod grounded;
mod instantiate;
mod join;
mod limits;
mod matching;
mod numeric;
mod parallel;
mod pattern;
mod search;
mod stream;
mod transient;
mod unify;
mod values;

type HashSet<T> = hashbrown::HashSet<T, foldhash::fast::RandomState>;
type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

use std::time::Instant;

use crate::error::{Error, Result};
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, TruthValue, Value};
pub use eval::{number_name, numbers_of};
pub use free::free_variables;
pub use join::{with_strategy, Strategy};
pub(crate) use limits::{check_deadline, check_groundings, expired, limits, max_groundings, nested, search_stack, split, with_stack};
pub use limits::{with_interrupt, with_limits, Interrupt, Limits};
use pattern::Pattern;
use search::Search;

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
    let _session = transient::Session::enter();
    read_through_failure(space, flow::execute(space, h))
}

/// `r`, unless a read through the space's store failed meanwhile: then
/// the work saw less than the store holds, and its answer is that error.
fn read_through_failure<T>(space: &AtomSpace, r: Result<T>) -> Result<T> {
    match space.take_backing_error() {
        Some(e) => Err(e),
        None => r,
    }
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
    let _session = transient::Session::enter();
    read_through_failure(space, run(space, query))
}

/// [`execute`], stopping with [`Error::TimedOut`] once `deadline` has passed.
pub fn execute_until(space: &AtomSpace, query: Handle, deadline: Instant) -> Result<Executed> {
    with_limits(Limits { deadline: Some(deadline), ..Limits::default() }, || execute(space, query))
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
    let _session = transient::Session::enter();
    let tv = nested(|| {
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
    });
    read_through_failure(space, tv)
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
        types::FORMULA_PREDICATE_LINK => formula_predicate(space, h, out),
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
        types::EXCLUSIVE_LINK => truth(exclusive(space, out)?),
        // Their members run for what they do; the verdict is fixed.
        types::TRUE_LINK | types::FALSE_LINK => {
            run_for_effect(space, out)?;
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

/// TrueLink, FalseLink: their members run for what they do (the verdict
/// is fixed).
fn run_for_effect(space: &AtomSpace, out: &[Handle]) -> Result<()> {
    for &m in out {
        let mt = type_of(space, m)?;
        if mt.is_a(types::EVALUATABLE_LINK) || mt == types::DEFINED_PREDICATE_NODE {
            evaluate(space, m)?;
        } else {
            run(space, m)?;
        }
    }
    Ok(())
}

/// (Exclusive A B ...): no two members give one value.
fn exclusive(space: &AtomSpace, out: &[Handle]) -> Result<bool> {
    let mut seen: Vec<Value> = Vec::with_capacity(out.len());
    for &m in out {
        let v = flow::execute(space, m)?;
        if seen.contains(&v) {
            return Ok(false);
        }
        seen.push(v);
    }
    Ok(true)
}

/// (FormulaPredicate STRENGTH [CONFIDENCE]): each formula's first number
/// (a Lambda around one is its body).
fn formula_predicate(space: &AtomSpace, h: Handle, out: &[Handle]) -> Result<Tail> {
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
                let scratch = transient::Scratch::over(space)?;
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

fn run(space: &AtomSpace, query: Handle) -> Result<Executed> {
    nested(|| run_one(space, query))
}

/// Runs one executable atom: the dispatch table of the link families, each
/// run in the module of its family.
fn run_one(space: &AtomSpace, query: Handle) -> Result<Executed> {
    let t = space.get_type(query).ok_or(Error::InvalidHandle(query))?;
    let out = space.outgoing(query).unwrap_or(&[]);
    pattern::check_depth(space, query)?;
    match t {
        types::GET_LINK | types::MEET_LINK | types::SATISFACTION_LINK => matching::get(space, query, t, out),
        types::BIND_LINK | types::QUERY_LINK => matching::bind(space, query, t, out),
        types::DUAL_LINK => matching::run_dual(space, query, out),
        _ if eval::is_arithmetic(t) => eval::execute_arithmetic(space, query),
        types::STRENGTH_OF_LINK | types::CONFIDENCE_OF_LINK | types::COUNT_OF_LINK | types::FLOAT_VALUE_OF_LINK => {
            Ok(Executed::Value(Value::float(eval::flow_numbers(space, query)?.0)))
        }
        types::EXECUTION_OUTPUT_LINK => match *out {
            [schema, list] => execute_applied(space, schema, &[list]),
            _ => Err(bad(format!("{} must hold a schema and its arguments", describe(space, query)))),
        },
        types::VALUE_OF_LINK | types::BOOL_VALUE_OF_LINK => values::value_of(space, query, out),
        types::TRUTH_VALUE_OF_LINK => values::truth_value_of(space, query, out),
        types::SET_TV_LINK => values::set_tv(space, query, out),
        types::SET_VALUE_LINK => values::set_value(space, query, out),
        types::EXECUTE_THREADED_LINK => Ok(Executed::Value(parallel::execute_threaded(space, query)?)),
        types::PUT_LINK => beta::execute_put(space, query),
        types::COND_LINK => flow::cond(space, out),
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
        | types::FALSE_LINK => execute_predicate(space, query),
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

/// A predicate executed (Equal, GreaterThan, Not, And ...): its verdict,
/// once nothing is left to ground.
fn execute_predicate(space: &AtomSpace, query: Handle) -> Result<Executed> {
    if has_variables(space, query)? {
        return Err(bad(format!("{} has free variables: put it in a query to ground them", describe(space, query))));
    }
    Ok(Executed::Value(Value::Truth(evaluate(space, query)?)))
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
