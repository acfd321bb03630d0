//! Evaluating clauses (EqualLink, GreaterThanLink, ...), computing
//! arithmetic over NumberNodes, and instantiating rewrites.

use smallvec::SmallVec;

use super::pattern::{Pattern, Term, TermId};
use super::search::{Bindings, Bound};
use super::{bad, Executed};
use crate::error::Result;
use crate::sexpr::fmt_f64;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

/// What a term evaluates to: an atom, numbers, or a structure that is not
/// an atom of the space (compared by what it would be).
#[derive(Debug, PartialEq)]
enum Ev {
    Atom(Handle),
    Numbers(Vec<f64>),
    Absent(Type, Vec<Ev>),
}

pub(crate) fn is_arithmetic(t: Type) -> bool {
    matches!(t, types::PLUS_LINK | types::MINUS_LINK | types::TIMES_LINK | types::DIVIDE_LINK)
}

/// The numbers of a NumberNode (its name holds them, space-separated);
/// `None` for any other atom.
pub fn numbers_of(space: &AtomSpace, h: Handle) -> Option<Vec<f64>> {
    if space.get_type(h)? != types::NUMBER_NODE {
        return None;
    }
    space.name(h)?.split_whitespace().map(|w| w.parse().ok()).collect()
}

/// The NumberNode name of `v`: its numbers, space-separated, as upstream
/// names a NumberNode made of a vector.
pub fn number_name(v: &[f64]) -> String {
    v.iter().map(|&x| fmt_f64(x)).collect::<Vec<_>>().join(" ")
}

/// Elementwise arithmetic; a single number stretches over a vector.
pub(crate) fn arithmetic(t: Type, args: &[Vec<f64>], what: impl Fn() -> String) -> Result<Vec<f64>> {
    let op = |a: f64, b: f64| match t {
        types::PLUS_LINK => a + b,
        types::MINUS_LINK => a - b,
        types::TIMES_LINK => a * b,
        _ => a / b,
    };
    let Some((first, rest)) = args.split_first() else {
        // Upstream's identities: (Plus) is 0, (Times) is 1.
        return Ok(vec![if matches!(t, types::PLUS_LINK | types::MINUS_LINK) { 0.0 } else { 1.0 }]);
    };
    let mut acc = first.clone();
    for v in rest {
        acc = match (acc.len(), v.len()) {
            (1, _) => v.iter().map(|&b| op(acc[0], b)).collect(),
            (_, 1) => acc.iter().map(|&a| op(a, v[0])).collect(),
            (n, m) if n == m => acc.iter().zip(v).map(|(&a, &b)| op(a, b)).collect(),
            (n, m) => return Err(bad(format!("{}: vectors of {n} and {m} numbers", what()))),
        };
    }
    if t == types::MINUS_LINK && args.len() == 1 {
        acc = acc.iter().map(|x| -x).collect();
    }
    Ok(acc)
}

/// The truth of evaluatable atom `h` under `b`.
pub(crate) fn truth(space: &AtomSpace, pat: &Pattern, h: Handle, b: &Bindings<'_>) -> Result<bool> {
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    let out = space.outgoing(h).unwrap_or(&[]);
    match t {
        types::TRUE_LINK => Ok(true),
        types::FALSE_LINK => Ok(false),
        types::NOT_LINK => match out {
            [m] => Ok(!truth(space, pat, *m, b)?),
            _ => Err(bad(format!("{} must hold one atom", super::describe(space, h)))),
        },
        types::AND_LINK | types::SEQUENTIAL_AND_LINK => {
            for &m in out {
                if !truth(space, pat, m, b)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        types::OR_LINK | types::SEQUENTIAL_OR_LINK => {
            for &m in out {
                if truth(space, pat, m, b)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        types::EQUAL_LINK | types::IDENTICAL_LINK if out.len() < 2 => Err(bad(format!("{} must hold two or more atoms", super::describe(space, h)))),
        types::EQUAL_LINK | types::IDENTICAL_LINK => {
            // Equal compares what its members compute; Identical, the atoms.
            let vals = out
                .iter()
                .map(|&m| value(space, pat, m, b).and_then(|v| if t == types::EQUAL_LINK { computed(space, v) } else { Ok(v) }))
                .collect::<Result<Vec<_>>>()?;
            let same = |x: &Ev, y: &Ev| match (x, y) {
                _ if t == types::IDENTICAL_LINK => x == y,
                (Ev::Atom(a), Ev::Numbers(n)) | (Ev::Numbers(n), Ev::Atom(a)) => numbers_of(space, *a).as_ref() == Some(n),
                _ => x == y,
            };
            Ok(vals.windows(2).all(|w| same(&w[0], &w[1])))
        }
        types::GREATER_THAN_LINK | types::LESS_THAN_LINK => {
            let [x, y] = out else {
                return Err(bad(format!("{} must compare two numbers", super::describe(space, h))));
            };
            // A side with no number (a value not there) compares to nothing.
            let (Some(x), Some(y)) = (scalar(space, pat, *x, b, h)?, scalar(space, pat, *y, b, h)?) else { return Ok(false) };
            Ok(if t == types::GREATER_THAN_LINK { x > y } else { x < y })
        }
        // Each member (grounded) an atom of the space whose truth value is
        // exactly (stv 1 1), or (stv 0 1).
        types::IS_TRUE_LINK | types::IS_FALSE_LINK => {
            let want = super::crisp(t == types::IS_TRUE_LINK);
            for &m in out {
                let Ev::Atom(a) = value(space, pat, m, b)? else { return Ok(false) };
                if space.get_tv(a) != Some(want) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        types::EVALUATION_LINK if super::is_grounded_evaluation(space, h) => grounded_truth(space, pat, h, b),
        // A Put of a predicate over the grounding's atoms: the predicate
        // applied to them (nothing is built for its presence checks).
        types::PUT_LINK if out.len() == 2 => {
            // Arguments not in the space are built in a scratch frame, as
            // a grounded predicate's are.
            let scratch = super::transient::Scratch::over(space)?;
            let args = materialize(&scratch, value(space, pat, out[1], b)?)?;
            Ok(super::holds(super::evaluate_applied(&scratch, out[0], &[args])?))
        }
        // A ContinuationLink: the recursive step it marks.
        types::CONTINUATION_LINK if out.len() == 1 => truth(space, pat, out[0], b),
        _ => Err(bad(format!("{} cannot be evaluated", super::describe(space, h)))),
    }
}

/// A grounded predicate's verdict on its arguments under `b`: true when the
/// mean of the truth value it returns is at least 0.5, as upstream decides.
/// The call runs in a scratch frame over the space: the arguments that are
/// not atoms of the space, and whatever the procedure adds, go there and
/// are gone after it (upstream's transient atomspace).
fn grounded_truth(space: &AtomSpace, pat: &Pattern, h: Handle, b: &Bindings<'_>) -> Result<bool> {
    let out = space.outgoing(h).unwrap_or(&[]);
    let scratch = super::transient::Scratch::over(space)?;
    let mut args = Vec::new();
    for &m in super::arguments(space, &out[1..]) {
        args.push(materialize(&scratch, value(space, pat, m, b)?)?);
    }
    Ok(super::grounded::call_predicate(&scratch, out[0], &args)?.mean() >= 0.5)
}

/// The atom a value stands for, added to `space` if it is not there.
fn materialize(space: &AtomSpace, v: Ev) -> Result<Handle> {
    match v {
        Ev::Atom(a) => Ok(a),
        Ev::Numbers(n) => space.add_node(types::NUMBER_NODE, &number_name(&n)),
        Ev::Absent(t, kids) => {
            let members = kids.into_iter().map(|k| materialize(space, k)).collect::<Result<Vec<_>>>()?;
            space.add_link(t, &members)
        }
    }
}

fn scalar(space: &AtomSpace, pat: &Pattern, m: Handle, b: &Bindings<'_>, at: Handle) -> Result<Option<f64>> {
    // Read numbers: none means a value was not there, which compares to nothing.
    let (v, read) = match value(space, pat, m, b)? {
        Ev::Numbers(v) => (v, true),
        // Code with nothing left to ground (a GetLink, a DefinedSchema): what it computes.
        // A grounding is any atom of the space, not one the query's check saw.
        Ev::Atom(a) if numbers_of(space, a).is_none() && computes(space, a) => {
            super::pattern::check_depth(space, a)?;
            (flow_numbers(space, a)?.0, false)
        }
        Ev::Atom(a) => (numbers_of(space, a).unwrap_or_default(), false),
        Ev::Absent(..) => (Vec::new(), false),
    };
    match v[..] {
        [x] => Ok(Some(x)),
        [] if read => Ok(None),
        _ => Err(bad(format!("{} compares numbers, but {} is not one number", super::describe(space, at), super::describe(space, m)))),
    }
}

/// The numbers `h` computes where it is executed (not matched): a
/// NumberNode's; StrengthOf, ConfidenceOf and CountOf of atoms (one number
/// each); FloatValueOf or ValueOf of a FloatValue (or the default after the
/// key); arithmetic over these, elementwise. With whether NumberNodes alone
/// went in: then the result is a NumberNode, else a FloatValue, as upstream.
/// Nesting is bounded by the query's depth check.
pub(crate) fn flow_numbers(space: &AtomSpace, h: Handle) -> Result<(Vec<f64>, bool)> {
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    if let Some(v) = numbers_of(space, h) {
        return Ok((v, true));
    }
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    let out = space.outgoing(h).unwrap_or(&[]);
    if let Some(read) = access(space, t, out, h) {
        let (v, nodes) = read?;
        if v.is_empty() && matches!(t, types::FLOAT_VALUE_OF_LINK | types::VALUE_OF_LINK) {
            return Err(bad(format!("{}: the atom has no value under that key", super::describe(space, h))));
        }
        return Ok((v, nodes));
    }
    match t {
        _ if is_arithmetic(t) => {
            let mut nums = Vec::with_capacity(out.len());
            let mut nodes = true;
            for &m in out {
                if numbers_of(space, m).is_none() && !computes(space, m) {
                    return Err(bad(format!("{} does not compute numbers: {} is not a number", super::describe(space, h), super::describe(space, m))));
                }
                let (v, n) = flow_numbers(space, m)?;
                nums.push(v);
                nodes &= n;
            }
            Ok((arithmetic(t, &nums, || super::describe(space, h))?, nodes))
        }
        // Other code (a GetLink, a DefinedSchema, a numeric function): what it gives.
        _ if computes(space, h) => super::flow::numbers(space, &super::flow::execute(space, super::beta::definition(space, h)?)?, h),
        _ => Err(bad(format!("{} does not compute numbers: it is not a number", super::describe(space, h)))),
    }
}

/// What an atom that is code (and holds no variable left to ground)
/// computes, for comparing: an atom, or numbers.
fn computed(space: &AtomSpace, v: Ev) -> Result<Ev> {
    let Ev::Atom(a) = v else { return Ok(v) };
    if !computes(space, a) || !super::free_variables(space, a)?.is_empty() {
        return Ok(Ev::Atom(a));
    }
    Ok(match super::flow::execute(space, super::beta::definition(space, a)?)? {
        crate::Value::Atom(x) => Ev::Atom(x),
        crate::Value::Float(x) => Ev::Numbers(x.to_vec()),
        _ => Ev::Atom(a),
    })
}

/// The numbers a value access (StrengthOf, ConfidenceOf, CountOf,
/// TruthValueOf, FloatValueOf, ValueOf) of type `t` over members `out`
/// reads; `None` for another type. `h` is the access, for messages.
fn access(space: &AtomSpace, t: Type, out: &[Handle], h: Handle) -> Option<Result<(Vec<f64>, bool)>> {
    let tv = |m: Handle| space.get_tv(m).ok_or(crate::Error::InvalidHandle(m));
    let read = || -> Result<(Vec<f64>, bool)> {
        Ok(match t {
            types::STRENGTH_OF_LINK => (out.iter().map(|&m| tv(m).map(|t| t.mean())).collect::<Result<_>>()?, false),
            types::CONFIDENCE_OF_LINK => (out.iter().map(|&m| tv(m).map(|t| t.confidence())).collect::<Result<_>>()?, false),
            types::COUNT_OF_LINK => (out.iter().map(|&m| tv(m).map(|t| t.count_of())).collect::<Result<_>>()?, false),
            // Each atom's [mean, confidence].
            types::TRUTH_VALUE_OF_LINK => {
                let mut v = Vec::with_capacity(2 * out.len());
                for &m in out {
                    let t = tv(m)?;
                    v.extend([t.mean(), t.confidence()]);
                }
                (v, false)
            }
            // (FloatValueOf (Number ...)): its numbers, as a FloatValue.
            types::FLOAT_VALUE_OF_LINK if out.len() == 1 && numbers_of(space, out[0]).is_some() => (numbers_of(space, out[0]).unwrap_or_default(), false),
            _ => {
                let (atom, key, default) = match *out {
                    [a, k] => (a, k, None),
                    [a, k, d] => (a, k, Some(d)),
                    _ => return Err(bad(format!("{} must hold an atom and a key, and optionally a default", super::describe(space, h)))),
                };
                match (space.get_value(atom, key), default) {
                    (Some(crate::Value::Float(v)), _) => (v.to_vec(), false),
                    (Some(v @ crate::Value::Stream(_)), _) => (super::flow::numbers(space, &v, h)?.0, false),
                    (Some(crate::Value::Truth(t)), _) => (t.to_vec(), false),
                    (Some(_), _) => return Err(bad(format!("{}: the value there is not a FloatValue", super::describe(space, h)))),
                    (None, Some(d)) => flow_numbers(space, d)?,
                    // Nothing to read: no numbers (an executed read says so; a
                    // comparison over it in a query does not hold).
                    (None, None) => (Vec::new(), false),
                }
            }
        })
    };
    matches!(
        t,
        types::STRENGTH_OF_LINK
            | types::CONFIDENCE_OF_LINK
            | types::COUNT_OF_LINK
            | types::TRUTH_VALUE_OF_LINK
            | types::FLOAT_VALUE_OF_LINK
            | types::VALUE_OF_LINK
    )
    .then(read)
}

/// Does `h` compute something when executed (code, or a DefinedSchema)?
fn computes(space: &AtomSpace, h: Handle) -> bool {
    space.get_type(h).is_some_and(|t| t.is_a(types::EXECUTABLE_LINK) || t == types::DEFINED_SCHEMA_NODE)
}

fn var_index(pat: &Pattern, h: Handle) -> Option<usize> {
    pat.vars.iter().position(|v| v.handle == h)
}

/// A run of atoms as one: the ListLink of them.
fn run_value(space: &AtomSpace, r: &[Handle]) -> Ev {
    match space.get_link(types::LIST_LINK, r) {
        Some(l) => Ev::Atom(l),
        None => Ev::Absent(types::LIST_LINK, r.iter().map(|&a| Ev::Atom(a)).collect()),
    }
}

/// The value of atom `h` of the query under `b`: variables replaced by
/// their groundings (a glob's run spliced into the link around it),
/// arithmetic computed, other links looked up.
fn value(space: &AtomSpace, pat: &Pattern, h: Handle, b: &Bindings<'_>) -> Result<Ev> {
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    if let Some(i) = var_index(pat, h) {
        return Ok(match &b[i] {
            Some(Bound::One(a)) => Ev::Atom(*a),
            Some(Bound::Run(r)) => run_value(space, r),
            Some(Bound::Bag(r)) => run_value(space, r),
            None => return Err(bad(format!("variable {} is not grounded here", super::describe(space, h)))),
        });
    }
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    if !space.is_link(h) || t == types::QUOTE_LINK {
        return Ok(Ev::Atom(h));
    }
    let mut kids = Vec::new();
    for &m in space.outgoing(h).unwrap_or(&[]) {
        match var_index(pat, m).and_then(|i| b[i].as_ref()) {
            Some(Bound::Run(r)) => kids.extend(r.iter().map(|&a| Ev::Atom(a))),
            Some(Bound::Bag(r)) => kids.extend(r.iter().map(|&a| Ev::Atom(a))),
            _ => kids.push(value(space, pat, m, b)?),
        }
    }
    if is_arithmetic(t) {
        let nums: Option<Vec<Vec<f64>>> = kids
            .iter()
            .map(|k| match k {
                Ev::Numbers(v) => Some(v.clone()),
                Ev::Atom(a) => numbers_of(space, *a),
                Ev::Absent(..) => None,
            })
            .collect();
        if let Some(nums) = nums {
            return Ok(Ev::Numbers(arithmetic(t, &nums, || super::describe(space, h))?));
        }
    }
    let members: Option<SmallVec<[Handle; 4]>> = kids.iter().map(|k| if let Ev::Atom(a) = k { Some(*a) } else { None }).collect();
    // A value read from grounded atoms (StrengthOf $X): the numbers read.
    if let Some(read) = members.as_ref().filter(|_| t != types::VALUE_OF_LINK).and_then(|m| access(space, t, m, h)) {
        return Ok(Ev::Numbers(read?.0));
    }
    match members.and_then(|m| space.get_link(t, &m)) {
        Some(a) => Ok(Ev::Atom(a)),
        None => Ok(Ev::Absent(t, kids)),
    }
}

/// Builds rewrite term `t` under grounding `b` in the space. Globs splice
/// into the link around them; at the top they become a ListLink.
pub(crate) fn instantiate(space: &AtomSpace, pat: &Pattern, t: TermId, b: &Bindings<'_>) -> Result<Handle> {
    let mut out = Vec::new();
    build(space, pat, t, b, &mut out)?;
    match out[..] {
        [h] if !matches!(pat.term(t), Term::Glob(_)) => Ok(h),
        _ => space.add_link(types::LIST_LINK, &out),
    }
}

fn build(space: &AtomSpace, pat: &Pattern, t: TermId, b: &Bindings<'_>, into: &mut Vec<Handle>) -> Result<()> {
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    match pat.term(t) {
        Term::Const(h) => into.push(*h),
        Term::Var(v) | Term::Glob(v) => match &b[*v] {
            Some(Bound::One(h)) => into.push(*h),
            Some(Bound::Run(r)) => into.extend_from_slice(r),
            Some(Bound::Bag(r)) => into.extend_from_slice(r),
            // Not grounded in this alternative of the body: itself, as upstream.
            None => into.push(pat.vars[*v].handle),
        },
        Term::Choice(_) => unreachable!("rewrites compile ChoiceLinks as links"),
        Term::Link { ty, kids, .. } => {
            let mut members = Vec::with_capacity(kids.len());
            for &k in kids {
                build(space, pat, k, b, &mut members)?;
            }
            if is_arithmetic(*ty) {
                let nums: Option<Vec<Vec<f64>>> = members.iter().map(|&m| numbers_of(space, m)).collect();
                if let Some(nums) = nums {
                    let v = arithmetic(*ty, &nums, || format!("({} ...) in the rewrite", ty.name()))?;
                    into.push(space.add_node(types::NUMBER_NODE, &number_name(&v))?);
                    return Ok(());
                }
            }
            into.push(space.add_link(*ty, &members)?);
        }
    }
    Ok(())
}

/// Arithmetic executed: computed whole, so a bad member adds no partial
/// results; a NumberNode where it computes from NumberNodes, else a
/// FloatValue.
pub(super) fn execute_arithmetic(space: &AtomSpace, query: Handle) -> Result<Executed> {
    let (v, nodes) = flow_numbers(space, query)?;
    Ok(if nodes { Executed::Atom(space.add_node(types::NUMBER_NODE, &number_name(&v))?) } else { Executed::Value(Value::float(v)) })
}
