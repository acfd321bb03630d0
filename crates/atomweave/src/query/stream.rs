//! Reading computed streams (FormulaStream, FutureStream,
//! FormulaTruthValue): their atoms are executed at each reading. The
//! constructor lives here, beside the reader it gives the stream, so that
//! [`value`](crate::Value) holds the stream as data and never calls up
//! into execution.

use crate::error::{Error, Result};
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, StreamValue, TruthValue, Value};

impl StreamValue {
    /// A stream of type `kind` (FormulaStream, FutureStream or
    /// FormulaTruthValue) over `atoms` of `space`, run at each reading.
    pub fn computed(kind: Type, space: &AtomSpace, atoms: Vec<Handle>) -> Result<Self> {
        if !matches!(kind, types::FORMULA_STREAM | types::FUTURE_STREAM | types::FORMULA_TRUTH_VALUE) {
            return Err(Error::InvalidValue(format!("{} is not a stream computed from atoms", kind.name())));
        }
        Ok(StreamValue::with_reader(kind, space, atoms, |s| super::nested(|| read(s))))
    }
}

/// One reading of a computed stream. A stream that reads itself (its code
/// reads the value it is) stops with an error at the executions' nesting
/// limit ([`nested`](super::nested), around this).
fn read(stream: &StreamValue) -> Result<Value> {
    let (kind, atoms) = (stream.stream_type(), stream.atoms());
    let space = stream.space().ok_or_else(|| Error::InvalidValue(format!("the space of this {} is gone", kind.name())))?;
    // A FormulaTruthValue of one predicate (an Evaluation, a
    // DefinedPredicate): that predicate's verdict.
    if let (types::FORMULA_TRUTH_VALUE, &[p]) = (kind, atoms) {
        if space.get_type(p).is_some_and(|t| t.is_a(types::EVALUATABLE_LINK) || t == types::DEFINED_PREDICATE_NODE) {
            return Ok(Value::Truth(super::evaluate(&space, p)?));
        }
    }
    let mut results = Vec::with_capacity(atoms.len());
    for &a in atoms {
        results.push(super::execute_value(&space, a)?);
    }
    if kind == types::FUTURE_STREAM {
        return Ok(Value::link(results));
    }
    let mut numbers = Vec::new();
    for (v, &a) in results.iter().zip(atoms) {
        numbers.extend(super::value_numbers(&space, v, a)?);
    }
    if kind == types::FORMULA_STREAM {
        return Ok(Value::float(numbers));
    }
    match numbers[..] {
        [s] => Ok(Value::Truth(TruthValue::simple(s, 1.0))),
        [s, c, ..] => Ok(Value::Truth(TruthValue::simple(s, c))),
        [] => Err(Error::InvalidValue("a FormulaTruthValue's formulas computed no number".into())),
    }
}
