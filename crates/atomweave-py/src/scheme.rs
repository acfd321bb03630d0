//! `scheme_eval`, `scheme_eval_h`, `scheme_eval_v` and `scheme_eval_as`:
//! Scheme evaluated over a Python AtomSpace, as upstream's `opencog.scheme`
//! offers.
//!
//! This crate knows no Guile. A library that holds a Scheme as well
//! (atomweave-guile's, built with its `python` feature) adds itself to
//! [`SCHEME`] at link time; without one (the portable wheel) these functions
//! raise RuntimeError saying so, and `load_file` reads data only.

use std::path::Path;

use atomweave::sexpr::LoadOptions;
use atomweave::{AtomSpace, Handle, Value};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::atom::PyAtom;
use crate::space::PySpace;

/// A Scheme that evaluates over the core's spaces, in this process. Each
/// call makes `space` the current atomspace for the evaluation only.
pub trait Scheme: Sync {
    /// What the expressions printed, then the last one's values as the
    /// REPL shows them; or the error's text.
    fn eval(&self, space: &AtomSpace, text: &str) -> Result<String, String>;
    /// The value the text gives, with its atoms in `space`; `None` if it
    /// gives no value.
    fn eval_value(&self, space: &AtomSpace, text: &str) -> Result<Option<Value>, String>;
    /// The atom the text gives, with the space that holds it.
    fn eval_atom(&self, space: &AtomSpace, text: &str) -> Result<Option<(AtomSpace, Handle)>, String>;
    /// The atomspace the text gives.
    fn eval_space(&self, space: &AtomSpace, text: &str) -> Result<Option<AtomSpace>, String>;
    /// Loads an Atomese file, evaluating what is not data.
    fn load_file(&self, space: &AtomSpace, path: &Path, options: &mut LoadOptions) -> Result<(), String>;
    /// Makes file stores read Scheme in their files (called at import).
    fn install_file_loader(&self);
}

/// The Scheme linked into this library, if any (at most one).
#[linkme::distributed_slice]
pub static SCHEME: [&'static dyn Scheme];

pub(crate) fn linked() -> Option<&'static dyn Scheme> {
    SCHEME.first().copied()
}

fn scheme(function: &str) -> PyResult<&'static dyn Scheme> {
    linked().ok_or_else(|| {
        PyRuntimeError::new_err(format!(
            "{function}: this atomweave was built without Scheme (the portable wheel); \
             build the Guile-enabled module (make py-build) to evaluate Scheme"
        ))
    })
}

/// Evaluates Scheme `text` with `atomspace` as the current atomspace;
/// returns what it printed and its value, as the REPL shows them, ending
/// with a newline as upstream's does (so even a definition gives "\n"). A
/// Scheme error raises RuntimeError with Guile's message.
#[pyfunction]
pub fn scheme_eval(py: Python<'_>, atomspace: &Bound<'_, PySpace>, text: &str) -> PyResult<String> {
    let s = scheme("scheme_eval")?;
    let space = atomspace.get().space.clone();
    let mut text = py.allow_threads(|| s.eval(&space, text)).map_err(PyRuntimeError::new_err)?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Evaluates Scheme `text` with `atomspace` as the current atomspace; returns
/// the value it gives (a FloatValue, StringValue, LinkValue, TruthValue or
/// Atom), or None if it gives none.
#[pyfunction]
pub fn scheme_eval_v(py: Python<'_>, atomspace: &Bound<'_, PySpace>, text: &str) -> PyResult<Option<PyObject>> {
    let s = scheme("scheme_eval_v")?;
    let space = atomspace.get().space.clone();
    let found = py.allow_threads(|| s.eval_value(&space, text)).map_err(PyRuntimeError::new_err)?;
    found.map(|v| crate::values::to_py(atomspace, v)).transpose()
}

/// Evaluates Scheme `text` with `atomspace` as the current atomspace; returns
/// the atom it gives, or None if its value is not an atom of that space's
/// hierarchy.
#[pyfunction]
pub fn scheme_eval_h(py: Python<'_>, atomspace: &Bound<'_, PySpace>, text: &str) -> PyResult<Option<PyAtom>> {
    let s = scheme("scheme_eval_h")?;
    let space = atomspace.get().space.clone();
    let found = py.allow_threads(|| s.eval_atom(&space, text)).map_err(PyRuntimeError::new_err)?;
    Ok(found.and_then(|(owner, h)| owner.same_hierarchy(&space).then(|| PyAtom { space: atomspace.clone().unbind(), handle: h })))
}

/// Evaluates Scheme `text` (with the default atomspace current) and returns
/// the AtomSpace it gives, as upstream's `scheme_eval_as`; None if its
/// value is not an atomspace.
#[pyfunction]
pub fn scheme_eval_as(py: Python<'_>, text: &str) -> PyResult<Option<PySpace>> {
    let s = scheme("scheme_eval_as")?;
    let default = crate::space::get_default_atomspace(py)?;
    let space = default.get().space.clone();
    let found = py.allow_threads(|| s.eval_space(&space, text)).map_err(PyRuntimeError::new_err)?;
    Ok(found.map(|space| PySpace { space }))
}

/// Loads a file that may hold Scheme: through the linked Scheme, else as
/// data only.
pub(crate) fn load_file(space: &AtomSpace, path: &Path, options: &mut LoadOptions) -> Result<(), String> {
    match linked() {
        Some(s) => s.load_file(space, path, options),
        None => {
            let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
            atomweave::sexpr::load_from(&mut &*space, std::io::BufReader::new(file), atomweave::sexpr::Place::START, options, |_| {})
                .map(drop)
                .map_err(|e| format!("{e} (if the file holds Scheme code: this atomweave was built without Scheme, which evaluates it)"))
        }
    }
}
