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
//! | arithmetic (`PlusLink` ...) | the NumberNode it computes |
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
//!   one of the query's own variables, or by a link that contains one.
//! - QuoteLink matches its contents literally (variables inside are plain
//!   atoms) except under an UnquoteLink; LocalQuoteLink quotes just the link
//!   directly inside it (`(LocalQuote (And ...))` matches an AndLink).
//! - Unordered links match in every permutation; duplicate groundings count
//!   once. Ordered links may hold globs, each taking a run of members.
//! - A glob's grounding, where one atom is needed (a Get result, a rewrite's
//!   member position outside a link), is a ListLink of its run; inside a
//!   rewrite link it is spliced in.
//! - Every variable of a rewrite must be declared (or, undeclared, occur in
//!   the body); bad queries are refused before anything is added.
//! - Variables that occur only in AbsentLinks are local to them: they are
//!   not part of the results.
//!
//! Large searches are split across the threads of the current rayon pool
//! (run `execute` inside `ThreadPool::install` to choose how many), with
//! the same results as one thread.

mod eval;
mod pattern;
mod search;

type HashSet<T> = hashbrown::HashSet<T, foldhash::fast::RandomState>;
type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;


use crate::error::{Error, Result};
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, TruthValue, Value};
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

/// Executes `query`, an atom of `space`: a query link (GetLink, BindLink,
/// MeetLink, QueryLink, SatisfactionLink, DualLink), arithmetic, or an
/// evaluatable link. See the [module documentation](self) for what each
/// returns. A bad query is an error, and adds nothing to the space.
pub fn execute(space: &AtomSpace, query: Handle) -> Result<Executed> {
    let t = space.get_type(query).ok_or(Error::InvalidHandle(query))?;
    let out = space.outgoing(query).unwrap_or(&[]);
    match t {
        types::GET_LINK | types::MEET_LINK | types::SATISFACTION_LINK => {
            let (vardecl, body) = match *out {
                [body] => (None, body),
                [decl, body] => (Some(decl), body),
                _ => return Err(bad(format!("{} must hold a body, after an optional variable declaration", describe(space, query)))),
            };
            let pat = Pattern::compile(space, vardecl, body, &[])?;
            let search = Search { space, pat: &pat };
            if t == types::SATISFACTION_LINK {
                let found = !search.groundings(true)?.is_empty();
                return Ok(Executed::Value(Value::Truth(crisp(found))));
            }
            let results = sorted(search.groundings(false)?);
            let wanted = result_vars(&pat, space)?;
            let atoms = results.iter().map(|g| tuple(space, &wanted, g)).collect::<Result<Vec<_>>>()?;
            deliver(space, t == types::GET_LINK, atoms)
        }
        types::BIND_LINK | types::QUERY_LINK => {
            let (vardecl, body, rewrites) = match out {
                [decl, body, rewrites @ ..] if is_vardecl_type(type_of(space, *decl)?) && !rewrites.is_empty() => (Some(*decl), *body, rewrites),
                [body, rewrites @ ..] if !rewrites.is_empty() => (None, *body, rewrites),
                _ => return Err(bad(format!("{} must hold a body and a rewrite, after an optional variable declaration", describe(space, query)))),
            };
            let pat = Pattern::compile(space, vardecl, body, rewrites)?;
            let results = sorted(Search { space, pat: &pat }.groundings(false)?);
            let mut atoms = Vec::with_capacity(results.len());
            for g in &results {
                let b: Bindings = g.iter().map(|v| v.as_ref().map(Bound::from)).collect();
                for &r in &pat.rewrites {
                    atoms.push(eval::instantiate(space, &pat, r, &b)?);
                }
            }
            deliver(space, t == types::BIND_LINK, atoms)
        }
        types::DUAL_LINK => {
            let [term] = *out else { return Err(bad(format!("{} must hold one term", describe(space, query)))) };
            deliver(space, true, dual(space, term)?)
        }
        _ if eval::is_arithmetic(t) => {
            let nums = out
                .iter()
                .map(|&m| match execute(space, m)? {
                    Executed::Atom(a) => eval::numbers_of(space, a).ok_or_else(|| bad(format!("{} is not a number", describe(space, a)))),
                    Executed::Value(_) => Err(bad(format!("{} gives a value, not a number", describe(space, m)))),
                })
                .collect::<Result<Vec<_>>>()?;
            let v = eval::arithmetic(t, &nums, || describe(space, query))?;
            Ok(Executed::Atom(space.add_node(types::NUMBER_NODE, &eval::number_name(&v))?))
        }
        types::EQUAL_LINK | types::IDENTICAL_LINK | types::GREATER_THAN_LINK | types::LESS_THAN_LINK | types::NOT_LINK | types::AND_LINK | types::OR_LINK | types::TRUE_LINK | types::FALSE_LINK => {
            let pat = Pattern::compile(space, None, query, &[])?;
            if !pat.vars.is_empty() {
                return Err(bad(format!("{} has free variables: put it in a query to ground them", describe(space, query))));
            }
            Ok(Executed::Value(Value::Truth(crisp(eval::truth(space, &pat, query, &Vec::new())?))))
        }
        _ => Ok(Executed::Atom(query)),
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

/// The variables a grounding reports: those some present clause grounds.
fn result_vars(pat: &Pattern, space: &AtomSpace) -> Result<Vec<usize>> {
    let grounded = |alt: &Vec<pattern::Clause>| alt.iter().filter(|c| c.kind == pattern::Kind::Present).fold(0u64, |m, c| m | c.vars);
    let first = pat.alternatives.first().map_or(0, grounded);
    if let Some(alt) = pat.alternatives.iter().find(|a| grounded(a) != first) {
        let differs = (grounded(alt) ^ first).trailing_zeros() as usize;
        return Err(bad(format!(
            "variable {} is grounded in some alternatives of the body and not in others",
            describe(space, pat.vars[differs].handle)
        )));
    }
    Ok((0..pat.vars.len()).filter(|i| first & (1 << i) != 0).collect())
}

/// One result atom: the grounding of one variable, or a ListLink of several.
fn tuple(space: &AtomSpace, wanted: &[usize], g: &Grounding) -> Result<Handle> {
    let one = |v: &Option<Val>| match v {
        Some(Val::One(h)) => Ok(*h),
        Some(Val::Run(r)) => space.add_link(types::LIST_LINK, r),
        None => Err(bad("an ungrounded variable in a result".into())),
    };
    match wanted {
        [i] => one(&g[*i]),
        _ => {
            let members = wanted.iter().map(|&i| one(&g[i])).collect::<Result<Vec<_>>>()?;
            space.add_link(types::LIST_LINK, &members)
        }
    }
}

/// A SetLink of the results added to the space, or a LinkValue of them.
fn deliver(space: &AtomSpace, as_set: bool, mut atoms: Vec<Handle>) -> Result<Executed> {
    let mut seen = HashSet::default();
    atoms.retain(|h| seen.insert(*h));
    if as_set {
        return Ok(Executed::Atom(space.add_link(types::SET_LINK, &atoms)?));
    }
    Ok(Executed::Value(Value::link(atoms.into_iter().map(Value::Atom).collect::<Vec<_>>())))
}

/// The patterns in the space (links of `term`'s type holding variables)
/// that `term` grounds.
fn dual(space: &AtomSpace, term: Handle) -> Result<Vec<Handle>> {
    let t = type_of(space, term)?;
    let vars = space.handles_by_type(types::VARIABLE_NODE, true);
    let holders = pattern::forbidden(space, vars);
    let mut found = Vec::new();
    for p in holders.into_iter().filter(|&p| p != term && space.get_type(p) == Some(t)) {
        let Ok(pat) = Pattern::compile(space, None, p, &[]) else { continue };
        if pat.vars.is_empty() || pat.alternatives.len() != 1 {
            continue;
        }
        let search = Search { space, pat: &pat };
        let root = pat.alternatives[0][0].root;
        let mut b: Bindings = vec![None; pat.vars.len()];
        if search.unify(root, term, &mut b, &mut |_| Flow::Stop) == Flow::Stop {
            found.push(p);
        }
    }
    Ok(found)
}

/// A query error.
pub(crate) fn bad(msg: String) -> Error {
    Error::Query(msg)
}

/// An atom as the error messages show it: its Atomese, cut short.
pub(crate) fn describe(space: &AtomSpace, h: Handle) -> String {
    let s = crate::sexpr::atom_to_string(space, h, crate::sexpr::Form::Wire);
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(117).collect::<String>())
    } else {
        s
    }
}
