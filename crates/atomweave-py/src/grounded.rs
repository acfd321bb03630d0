//! `py:` grounded procedures: the core's ExecutionOutputLink and
//! EvaluationLink call Python functions by name, as upstream's do.
//!
//! `py:func` is `func` of `__main__` (else a module of that name);
//! `py:a.b.c` follows attributes from `a` (an object of `__main__`, or a
//! module, imported if need be, as are submodules on the way). The function gets the argument atoms, one
//! per parameter, and returns an Atom, a TruthValue or a Value; anything
//! else, and any exception it raises, is an error carrying its message.
//! During the call the space it runs in is the default atomspace, so the
//! type constructors add to it (a query's scratch frame, as upstream's).

use std::sync::Arc;

use atomweave::query::grounded::{self, Procedures};
use atomweave::{AtomSpace, Error, Handle, Value};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::space::PySpace;
use crate::values;

/// Runs `py:` names in this process's interpreter.
pub struct PythonProcedures;

/// Makes Python run `py:` procedures in this process.
pub(crate) fn register() {
    grounded::register("py", Arc::new(PythonProcedures));
}

/// The object `name` names: `__main__`'s attribute, else a module.
fn resolve<'py>(py: Python<'py>, name: &str) -> Result<Bound<'py, PyAny>, String> {
    let not_found = || format!("Python function '{name}' not found in module '__main__' (nor as a module)");
    let mut parts = name.split('.');
    let first = parts.next().unwrap_or_default();
    let main = py.import("__main__").map_err(|e| e.to_string())?;
    let mut obj = match main.getattr(first) {
        Ok(o) => o,
        Err(_) => py.import(first).map_err(|_| not_found())?.into_any(),
    };
    let mut path = first.to_string();
    for part in parts {
        path = format!("{path}.{part}");
        obj = match obj.getattr(part) {
            Ok(o) => o,
            // A package's submodule is its attribute once imported.
            Err(_) => match py.import(path.as_str()) {
                Ok(m) => m.into_any(),
                // Missing is "not found"; a submodule that exists but fails
                // to import (it imports something missing) says why.
                Err(e) if missing(py, &e, &path) => return Err(not_found()),
                Err(e) => return Err(format!("importing {path}: {e}")),
            },
        };
    }
    Ok(obj)
}

/// Whether `e` says that module `path` itself does not exist.
fn missing(py: Python<'_>, e: &PyErr, path: &str) -> bool {
    e.is_instance_of::<pyo3::exceptions::PyModuleNotFoundError>(py) && e.value(py).getattr("name").is_ok_and(|n| n.extract::<String>().is_ok_and(|n| n == path))
}

impl Procedures for PythonProcedures {
    fn call(&self, space: &AtomSpace, name: &str, args: &[Handle]) -> atomweave::Result<Value> {
        Python::with_gil(|py| {
            let failed = |e: String| Error::Procedure(format!("py:{name}: {e}"));
            let f = resolve(py, name).map_err(failed)?;
            let space_obj = Bound::new(py, PySpace { space: space.clone() }).map_err(|e| failed(e.to_string()))?;
            let atoms = args.iter().map(|&h| PySpace::atom(&space_obj, h));
            let args = PyTuple::new(py, atoms).map_err(|e| failed(e.to_string()))?;
            let out = crate::space::with_default(space_obj.clone().unbind(), || f.call1(args)).map_err(|e| {
                // Ctrl-C stops the work that called the function, not just the call.
                if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                    Error::Interrupted(format!("py:{name}: {e}"))
                } else {
                    failed(e.to_string())
                }
            })?;
            if !values::is_value(&out) {
                let got = out.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                return Err(failed(format!("the function did not return Atomese (an Atom, a TruthValue or a Value) but {got}")));
            }
            values::from_py(space_obj.get(), py, &out).map_err(|e| failed(e.to_string()))
        })
    }
}
