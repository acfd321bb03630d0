//! Grounded procedures: a GroundedSchemaNode or GroundedPredicateNode names
//! code, `py:func` or `scm:proc`, that an ExecutionOutputLink or an
//! EvaluationLink calls with atoms as arguments.
//!
//! The core runs no language itself: a front end (Python, Guile) registers
//! the [`Procedures`] of its prefix with [`register`], and the query engine
//! hands each call to the one registered for the name's prefix. A name whose
//! prefix nobody registered is an error that says so.

use std::sync::{Arc, RwLock};

use crate::error::{Error, Result};
use crate::{AtomSpace, Handle, Value};

/// The code of one prefix (`py`, `scm`): how a front end calls it.
pub trait Procedures: Send + Sync {
    /// Calls procedure `name` (the node's name after `prefix:`) with
    /// `args`, atoms of `space`; what it returns, or an error carrying the
    /// procedure's own message ([`Error::Procedure`]).
    fn call(&self, space: &AtomSpace, name: &str, args: &[Handle]) -> Result<Value>;

    /// Calls procedure `name` with arguments that may be values, not only
    /// atoms (a glob of a FilterLink bound to values). A front end that
    /// can pass values overrides this; by default, atoms are passed as
    /// [`call`](Self::call) passes them and other values are refused.
    fn call_values(&self, space: &AtomSpace, name: &str, args: &[Value]) -> Result<Value> {
        let mut atoms = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Value::Atom(h) => atoms.push(*h),
                v => return Err(Error::Procedure(format!("{name}: this front end passes atoms only, and an argument is a {}", v.value_type().name()))),
            }
        }
        self.call(space, name, &atoms)
    }
}

/// The registered front ends, by prefix. Few and rarely changed: a list.
static REGISTRY: RwLock<Vec<(String, Arc<dyn Procedures>)>> = RwLock::new(Vec::new());

/// Makes `procedures` run the names `prefix:...` in this process (replacing
/// what ran them before).
pub fn register(prefix: &str, procedures: Arc<dyn Procedures>) {
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    registry.retain(|(p, _)| p != prefix);
    registry.push((prefix.to_string(), procedures));
}

/// Calls the procedure grounded node `node` names with `args`.
pub(crate) fn call(space: &AtomSpace, node: Handle, args: &[Handle]) -> Result<Value> {
    let (procedures, name) = resolve(space, node)?;
    procedures.call(space, &name, args)
}

/// Calls the grounded predicate `node` names with `args`: its truth value,
/// or an error that says what it returned instead.
pub(crate) fn call_predicate(space: &AtomSpace, node: Handle, args: &[Handle]) -> Result<crate::TruthValue> {
    match call(space, node, args)? {
        Value::Truth(tv) => Ok(tv),
        other => Err(Error::Procedure(format!("{} did not return a TruthValue but a {}", space.name(node).unwrap_or_default(), other.value_type().name()))),
    }
}

/// Calls the procedure grounded node `node` names with `args`, values.
pub(crate) fn call_values(space: &AtomSpace, node: Handle, args: &[Value]) -> Result<Value> {
    let (procedures, name) = resolve(space, node)?;
    procedures.call_values(space, &name, args)
}

/// The front end that runs the procedure `node` names, and its name there.
fn resolve(space: &AtomSpace, node: Handle) -> Result<(Arc<dyn Procedures>, String)> {
    let full = space.name(node).ok_or(Error::InvalidHandle(node))?;
    let Some((prefix, name)) = full.split_once(':') else {
        return Err(Error::Procedure(format!("{full:?} names no procedure: a grounded procedure is prefix:name, such as py:func or scm:proc")));
    };
    if super::limits::grounded_refused() {
        return Err(Error::Procedure(format!("{full}: grounded procedures are refused in this query (it runs for a client that may only read)")));
    }
    let procedures = {
        let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
        registry.iter().find(|(p, _)| p == prefix).map(|(_, f)| f.clone())
    };
    let Some(procedures) = procedures else {
        let hint = match prefix {
            "py" => " (import atomweave in Python, or run the query from Python)",
            "scm" => " (use (opencog) in Guile, or run the query from Scheme)",
            _ => "",
        };
        return Err(Error::Procedure(format!("no front end runs {prefix}: procedures in this process, so {full} cannot be called{hint}")));
    };
    Ok((procedures, name.trim().to_string()))
}
