//! The links that read and write an atom's values: ValueOfLink,
//! TruthValueOfLink, SetTVLink and SetValueLink.
//!
//! **Invariant:** a value is computed whole before it is set, so a failing
//! expression changes nothing.

use crate::error::{Error, Result};
use crate::types;
use crate::{AtomSpace, Handle, StreamValue, TruthValue, Value};

use super::{bad, describe, eval, evaluate, flow, run, type_of, Executed};

/// (ValueOf ATOM KEY [DEFAULT]): the value under the key; else the
/// default; else VoidValue, as upstream.
pub(super) fn value_of(space: &AtomSpace, query: Handle, out: &[Handle]) -> Result<Executed> {
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

/// (TruthValueOf ATOM): its truth value.
pub(super) fn truth_value_of(space: &AtomSpace, query: Handle, out: &[Handle]) -> Result<Executed> {
    let [atom] = *out else { return Err(bad(format!("{} must hold one atom", describe(space, query)))) };
    Ok(Executed::Value(Value::Truth(space.get_tv(atom).ok_or(Error::InvalidHandle(atom))?)))
}

/// (SetTV ATOM EXPR): EXPR's truth value (evaluated, or numbers
/// [strength confidence] computed) set on ATOM, and given; a
/// PromisePredicate's FormulaTruthValue is set as itself, run at each
/// reading. (SetTV ATOM PREDICATE ARGS...): a FormulaTruthValue of the
/// predicate applied to the arguments, as upstream's.
pub(super) fn set_tv(space: &AtomSpace, query: Handle, out: &[Handle]) -> Result<Executed> {
    let set_stream = |stream: StreamValue| -> Result<Executed> {
        space.set_tv_stream(out[0], stream.clone())?;
        Ok(Executed::Value(Value::Stream(stream)))
    };
    let expr = match *out {
        [_, expr] => expr,
        [_, _, _, ..] => {
            let code = space.add_link(types::EVALUATION_LINK, &out[1..])?;
            return set_stream(StreamValue::computed(types::FORMULA_TRUTH_VALUE, space, vec![code])?);
        }
        _ => {
            return Err(bad(format!("{} must hold an atom and a truth value's expression, or an atom, a predicate and its arguments", describe(space, query))))
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

/// (SetValue ATOM KEY EXPR): what EXPR executes to (data: itself), set
/// on ATOM under KEY, and given. (SetValue ATOM KEY SCHEMA ARGS): the
/// schema applied to the arguments.
pub(super) fn set_value(space: &AtomSpace, query: Handle, out: &[Handle]) -> Result<Executed> {
    let (atom, key, result) = match *out {
        [atom, key, expr] => (atom, key, run(space, expr)?),
        // A stream over the schema's application, run at each
        // reading: numbers (a FormulaStream) if the arguments compute
        // numbers, else a FutureStream.
        [atom, key, schema, args] => {
            let call = space.add_link(types::EXECUTION_OUTPUT_LINK, &[schema, args])?;
            let numeric = type_of(space, args)?.is_a(types::NUMERIC_OUTPUT_LINK);
            let kind = if numeric { types::FORMULA_STREAM } else { types::FUTURE_STREAM };
            (atom, key, Executed::Value(Value::Stream(StreamValue::computed(kind, space, vec![call])?)))
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
