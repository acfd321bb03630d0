//! Executing Atomese over values: links that read, compute and build values
//! (Time, StringOf, LinkSignature, StreamValueOf ...) and FilterLink, which
//! matches atoms and values against a pattern and rewrites what matches.
//!
//! Unlike the matcher's groundings, a filter's variables may stand for
//! values that are not atoms (a FloatValue, a LinkValue): execution here
//! runs in an environment of such bindings ([`Env`]). A value bound to a
//! variable may flow into code (arithmetic, ValueOf, LinkSignature), never
//! into a link added to the space: that is an error naming the link.

use std::time::{SystemTime, UNIX_EPOCH};

use super::pattern::MAX_DEPTH;
use super::{bad, collect, describe, eval, evaluate, filter, holds, numeric, run, type_of, Executed, HashMap};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

/// Variables bound to values: atoms (`Value::Atom`) or any other value.
pub(crate) type Env = HashMap<Handle, Value>;

/// The link types this module executes.
pub(crate) fn is_flow(t: Type) -> bool {
    matches!(
        t,
        types::TIME_LINK
            | types::STRING_OF_LINK
            | types::LINK_SIGNATURE_LINK
            | types::STREAM_VALUE_OF_LINK
            | types::FILTER_LINK
            | types::PROMISE_LINK
            | types::PROMISE_PREDICATE_LINK
    )
}

/// What `h` executes to, as a value (an atom is `Value::Atom`).
pub(crate) fn execute(space: &AtomSpace, h: Handle) -> Result<Value> {
    // One execution deeper: the numeric, collection and filter links call
    // back here for their members, and code nests without end otherwise.
    super::nested(|| exec(space, h, &Env::default(), 0))
}

fn into_value(e: Executed) -> Value {
    match e {
        Executed::Atom(h) => Value::Atom(h),
        Executed::Value(v) => v,
    }
}

fn too_deep() -> crate::Error {
    bad(format!("an expression nested more than {MAX_DEPTH} deep"))
}

/// Executes `h` with the variables of `env` bound.
pub(crate) fn exec(space: &AtomSpace, h: Handle, env: &Env, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    if let Some(v) = env.get(&h) {
        return Ok(v.clone());
    }
    let t = type_of(space, h)?;
    let out = space.outgoing(h).unwrap_or(&[]);
    match t {
        // Nothing matched a lone item: VoidValue, upstream's null.
        types::FILTER_LINK => Ok(filter::filter(space, h, env, depth)?.unwrap_or(Value::Void)),
        _ if numeric::is_numeric(t) && env.is_empty() => numeric::execute(space, h),
        _ if collect::is_collect(t) && env.is_empty() => collect::execute(space, h),
        types::TIME_LINK => {
            if !out.is_empty() {
                return Err(bad(format!("{} takes no arguments", describe(space, h))));
            }
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_err(|e| bad(format!("the clock is before 1970: {e}")))?;
            Ok(Value::float([now.as_secs_f64()]))
        }
        types::STRING_OF_LINK => string_of(space, h, env, depth),
        // (Promise [TYPE] CODE...): a stream that runs the code at each
        // reading (a FormulaStream unless a FutureStream is asked for).
        types::PROMISE_LINK => promise(space, h, out),
        // (PromisePredicate PREDICATE) or (PromisePredicate STRENGTH
        // CONFIDENCE): a FormulaTruthValue that runs them at each reading.
        types::PROMISE_PREDICATE_LINK => {
            if !(1..=2).contains(&out.len()) {
                return Err(bad(format!("{} holds a predicate, or a strength's and a confidence's formulas", describe(space, h))));
            }
            Ok(Value::Stream(crate::StreamValue::computed(types::FORMULA_TRUTH_VALUE, space, out.to_vec())?))
        }
        types::LINK_SIGNATURE_LINK => {
            let Some((&kind, members)) = out.split_first() else {
                return Err(bad(format!("{} must hold a type and its members", describe(space, h))));
            };
            let kind = named_type(space, kind)?;
            let items = members.iter().map(|&m| exec(space, m, env, depth + 1)).collect::<Result<Vec<_>>>()?;
            build(space, kind, items, h)
        }
        types::STREAM_VALUE_OF_LINK => stream_value_of(space, h, out, env, depth),
        // A grounded schema over bound variables: the values they hold are
        // its arguments (a glob's run, each), passed as values.
        types::EXECUTION_OUTPUT_LINK
            if out.len() == 2 && space.get_type(out[0]).is_some_and(|s| s.is_a(types::GROUNDED_SCHEMA_NODE)) && mentions(space, out[1], env) =>
        {
            grounded_over_values(space, out, env, depth)
        }
        // (ValueOf X) of a variable bound to a value: that value.
        types::VALUE_OF_LINK if out.len() == 1 => match exec(space, out[0], env, depth + 1)? {
            Value::Atom(a) => Err(bad(format!("{} must hold an atom and a key, not {} alone", describe(space, h), describe(space, a)))),
            v => Ok(v),
        },
        _ if env.is_empty() || !mentions(space, h, env) => {
            if t.is_a(types::EXECUTABLE_LINK) {
                into_value_run(space, h)
            } else {
                Ok(Value::Atom(h))
            }
        }
        _ if eval::is_arithmetic(t) => {
            let mut nums = Vec::with_capacity(out.len());
            let mut nodes = true;
            for &m in out {
                let (v, n) = numbers(space, &exec(space, m, env, depth + 1)?, m)?;
                nums.push(v);
                nodes &= n;
            }
            let v = eval::arithmetic(t, &nums, || describe(space, h))?;
            Ok(if nodes { Value::Atom(space.add_node(types::NUMBER_NODE, &eval::number_name(&v))?) } else { Value::float(v) })
        }
        types::SET_VALUE_LINK => {
            let [atom, key, expr] = *out else { return Err(bad(format!("{} must hold an atom, a key and a value's expression", describe(space, h)))) };
            let atom = atom_of(space, exec(space, atom, env, depth + 1)?, h)?;
            let key = atom_of(space, exec(space, key, env, depth + 1)?, h)?;
            let v = exec(space, expr, env, depth + 1)?;
            space.set_value(atom, key, v.clone())?;
            Ok(v)
        }
        // Other code (value reads among it): its members are atoms once bound.
        _ if t.is_a(types::EXECUTABLE_LINK) => {
            let built = substitute(space, h, env, depth)?;
            into_value_run(space, built)
        }
        // Data holding bound variables: built, its code members run.
        _ => Ok(Value::Atom(substitute(space, h, env, depth)?)),
    }
}

/// A grounded schema over bound variables: the values they hold are its
/// arguments (a glob's run, each), passed as values.
fn grounded_over_values(space: &AtomSpace, out: &[Handle], env: &Env, depth: usize) -> Result<Value> {
    let given = super::arguments(space, &out[1..]);
    let mut args = Vec::with_capacity(given.len());
    for &a in given {
        match env.get(&a) {
            Some(Value::Link(run)) if type_of(space, a)? == types::GLOB_NODE => args.extend(run.iter().cloned()),
            Some(v) => args.push(v.clone()),
            None => args.push(Value::Atom(substitute(space, a, env, depth + 1)?)),
        }
    }
    super::grounded::call_values(space, out[0], &args)
}

/// (StreamValueOf ATOM KEY): one item of the value there: a queue's
/// front (taken), a stream's reading, or the value itself.
fn stream_value_of(space: &AtomSpace, h: Handle, out: &[Handle], env: &Env, depth: usize) -> Result<Value> {
    let [atom, key] = *out else { return Err(bad(format!("{} must hold an atom and a key", describe(space, h)))) };
    let (atom, key) = (atom_of(space, exec(space, atom, env, depth + 1)?, h)?, atom_of(space, exec(space, key, env, depth + 1)?, h)?);
    match space.get_value(atom, key) {
        // Taking from a queue changes it: not in a read-only space; in a
        // child space, from the child's own copy (set there), as any
        // change a child makes to a value.
        Some(Value::Queue(q)) => {
            if space.is_read_only() {
                return Err(bad(format!("{}: the space is read-only, so nothing is taken from the queue", describe(space, h))));
            }
            let q = if space.bases().is_empty() {
                q
            } else {
                let own = crate::QueueValue::new(q.snapshot());
                space.set_value(atom, key, Value::Queue(own.clone()))?;
                own
            };
            q.pop().ok_or_else(|| bad(format!("{}: the queue there is empty", describe(space, h))))
        }
        Some(Value::Stream(s)) => s.sample(),
        Some(v) => Ok(v),
        None => Ok(Value::Void),
    }
}

/// (Promise [TYPE] CODE...): a stream that runs the code at each reading
/// (a FormulaStream unless a FutureStream is asked for).
fn promise(space: &AtomSpace, h: Handle, out: &[Handle]) -> Result<Value> {
    let mut kind = types::FORMULA_STREAM;
    let mut code = Vec::with_capacity(out.len());
    for &m in out {
        if type_of(space, m)?.is_a(types::TYPE_NODE) {
            kind = named_type(space, m)?;
        } else {
            code.push(m);
        }
    }
    if let [list] = code[..] {
        if space.get_type(list) == Some(types::LIST_LINK) {
            code = space.outgoing(list).unwrap_or(&[]).to_vec();
        }
    }
    if code.is_empty() {
        return Err(bad(format!("{} must hold code to run", describe(space, h))));
    }
    Ok(Value::Stream(crate::StreamValue::computed(kind, space, code)?))
}

fn into_value_run(space: &AtomSpace, h: Handle) -> Result<Value> {
    Ok(into_value(run(space, h)?))
}

/// Does `h` hold a variable `env` binds?
fn mentions(space: &AtomSpace, h: Handle, env: &Env) -> bool {
    super::holds_any(space, h, |x| env.contains_key(&x))
}

/// `h` with the variables of `env` in place, added to the space: a bound
/// glob's ListLink (or run of atoms) is spliced into the link around it; a code member of a
/// data link is run, and must give an atom; a value that is not an atom
/// cannot go into a link.
fn substitute(space: &AtomSpace, h: Handle, env: &Env, depth: usize) -> Result<Handle> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    // Members shared in the body are built at each place (their code runs
    // at each): a deadline stops a body of many such paths.
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    if let Some(v) = env.get(&h) {
        return atom_of(space, v.clone(), h);
    }
    let t = type_of(space, h)?;
    if !t.is_link() || !mentions(space, h, env) {
        return Ok(h);
    }
    let code = t.is_a(types::EXECUTABLE_LINK);
    let mut members = Vec::new();
    for &m in space.outgoing(h).unwrap_or(&[]) {
        match env.get(&m) {
            Some(Value::Atom(a)) if type_of(space, m)? == types::GLOB_NODE && space.get_type(*a) == Some(types::LIST_LINK) => {
                members.extend_from_slice(space.outgoing(*a).unwrap_or(&[]));
            }
            // A glob bound to a run of values (from a LinkValue): spliced
            // in, when each is an atom.
            Some(Value::Link(run)) if type_of(space, m)? == types::GLOB_NODE => {
                for v in run.iter() {
                    members.push(atom_of(space, v.clone(), m)?);
                }
            }
            _ if !code && type_of(space, m)?.is_a(types::EXECUTABLE_LINK) => members.push(atom_of(space, exec(space, m, env, depth + 1)?, m)?),
            _ => members.push(substitute(space, m, env, depth + 1)?),
        }
    }
    space.add_link(t, &members)
}

/// The atom a value is, or an error: a value that is not an atom has no
/// place in a link.
pub(crate) fn atom_of(space: &AtomSpace, v: Value, at: Handle) -> Result<Handle> {
    match v {
        Value::Atom(a) => Ok(a),
        v => Err(bad(format!("{}: a {} is not an atom, and cannot be one here", describe(space, at), v.value_type().name()))),
    }
}

/// The type a TypeNode names.
pub(crate) fn named_type(space: &AtomSpace, node: Handle) -> Result<Type> {
    let tt = type_of(space, node)?;
    if !tt.is_a(types::TYPE_NODE) {
        return Err(bad(format!("{} is not a TypeNode", describe(space, node))));
    }
    let name = space.name(node).unwrap_or_default();
    Type::from_name(name).ok_or_else(|| bad(format!("unknown type {name:?} in {}", describe(space, node))))
}

/// A value of type `kind` holding `items`: a LinkValue (or a QueueValue),
/// or a link of the atoms among them.
pub(crate) fn build(space: &AtomSpace, kind: Type, items: Vec<Value>, at: Handle) -> Result<Value> {
    // Built a level at a time from what it read, a value could nest
    // without bound: it is held to what a space would hold.
    let value = |v: Value| v.check_shape().map(|()| v);
    match kind {
        types::LINK_VALUE => value(Value::link(items)),
        types::QUEUE_VALUE => value(Value::Queue(crate::QueueValue::new(items))),
        k if k.is_link() => {
            let atoms = items.into_iter().map(|v| atom_of(space, v, at)).collect::<Result<Vec<_>>>()?;
            Ok(Value::Atom(space.add_link(k, &atoms)?))
        }
        k => Err(bad(format!("{}: a LinkSignature builds a link or a LinkValue, not a {}", describe(space, at), k.name()))),
    }
}

/// The numbers a value stands for, and whether it is a NumberNode: a
/// NumberNode's, a FloatValue's, a truth value's (mean, confidence), the
/// lone member of a SetLink (what a GetLink finds).
pub(crate) fn numbers(space: &AtomSpace, v: &Value, at: Handle) -> Result<(Vec<f64>, bool)> {
    match v {
        Value::Stream(s) => Ok((numbers(space, &s.sample()?, at)?.0, false)),
        Value::Float(x) => Ok((x.to_vec(), false)),
        Value::Truth(tv) => Ok((tv.to_vec(), false)),
        Value::Atom(a) => {
            if let Some(n) = eval::numbers_of(space, *a) {
                return Ok((n, true));
            }
            match (space.get_type(*a), space.outgoing(*a).unwrap_or(&[])) {
                (Some(types::SET_LINK), &[one]) => numbers(space, &Value::Atom(one), at),
                _ => Err(bad(format!("{} is not a number: {} is", describe(space, at), describe(space, *a)))),
            }
        }
        other => Err(bad(format!("{} is not a number: it gives a {}", describe(space, at), other.value_type().name()))),
    }
}

/// `(StringOf TYPE X)`: X's string (a node's name, a StringValue's first
/// string) as a node of TYPE, or as a StringValue.
fn string_of(space: &AtomSpace, h: Handle, env: &Env, depth: usize) -> Result<Value> {
    let out = space.outgoing(h).unwrap_or(&[]);
    let [kind, x] = *out else { return Err(bad(format!("{} must hold a type and an atom or value", describe(space, h)))) };
    let kind = named_type(space, kind)?;
    let v = exec(space, x, env, depth + 1)?;
    let text = match &v {
        Value::Atom(a) if space.get_type(*a).is_some_and(|t| t.is_node()) => space.name(*a).unwrap_or_default().to_string(),
        Value::String(s) if !s.is_empty() => s[0].clone(),
        other => return Err(bad(format!("{}: {} has no string", describe(space, h), show(space, other)))),
    };
    match kind {
        types::STRING_VALUE => Ok(Value::string([text])),
        k if k.is_node() => Ok(Value::Atom(space.add_node(k, &text)?)),
        k => Err(bad(format!("{}: StringOf makes a node or a StringValue, not a {}", describe(space, h), k.name()))),
    }
}

/// A value as error messages show it: its Atomese, cut short.
pub(crate) fn show(space: &AtomSpace, v: &Value) -> String {
    let mut text = String::new();
    if crate::sexpr::write_value(space, v, &mut text).is_err() || text.chars().count() > 120 {
        text = text.chars().take(120).collect::<String>() + "...";
    }
    text
}

/// (Cond C1 V1 C2 V2 ... [DEFAULT]): the value after the first condition
/// that holds, executed; else the default; else nothing.
pub(super) fn cond(space: &AtomSpace, out: &[Handle]) -> Result<Executed> {
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
