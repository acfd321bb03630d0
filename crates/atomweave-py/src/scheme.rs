//! `scheme_eval` and `scheme_eval_h`: Scheme (Guile, with `(opencog)`
//! loaded) evaluated over a Python AtomSpace, as upstream's
//! `opencog.scheme` module offers. Guile starts on first use.

use atomweave::AtomSpace;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::atom::PyAtom;
use crate::space::PySpace;

/// The space's index in Scheme (Guile starts on first use, with this space
/// as its first current one).
fn index_of(space: &AtomSpace) -> u32 {
    atomweave_guile::boot(space.clone());
    atomweave_guile::register_space(space.clone())
}

/// Evaluates Scheme `text` with `atomspace` as the current atomspace;
/// returns what it printed and its value, as the REPL shows them, ending
/// with a newline as upstream's does (so even a definition gives "\n"). A
/// Scheme error raises RuntimeError with Guile's message.
#[pyfunction]
pub fn scheme_eval(py: Python<'_>, atomspace: &Bound<'_, PySpace>, text: &str) -> PyResult<String> {
    let space = atomspace.get().space.clone();
    let done = py.allow_threads(|| {
        let i = index_of(&space);
        atomweave_guile::with_guile(|| {
            atomweave_guile::select_space(i);
            atomweave_guile::eval(text)
        })
    });
    let mut text = done.map_err(PyRuntimeError::new_err)?;
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
    let space = atomspace.get().space.clone();
    let found = py.allow_threads(|| {
        let i = index_of(&space);
        atomweave_guile::with_guile(|| {
            atomweave_guile::select_space(i);
            atomweave_guile::eval_value(text, i)
        })
    });
    found.map_err(PyRuntimeError::new_err)?.map(|v| crate::values::to_py(atomspace, v)).transpose()
}

/// Evaluates Scheme `text` with `atomspace` as the current atomspace; returns
/// the atom it gives, or None if its value is not an atom of that space's
/// hierarchy.
#[pyfunction]
pub fn scheme_eval_h(py: Python<'_>, atomspace: &Bound<'_, PySpace>, text: &str) -> PyResult<Option<PyAtom>> {
    let space = atomspace.get().space.clone();
    let (i, found) = py.allow_threads(|| {
        let i = index_of(&space);
        let found = atomweave_guile::with_guile(|| {
            atomweave_guile::select_space(i);
            atomweave_guile::eval_atom(text)
        });
        (i, found)
    });
    let found = found.map_err(PyRuntimeError::new_err)?;
    Ok(found.and_then(|(owner, h)| {
        let same = owner == i || atomweave_guile::space_of_index(owner).is_some_and(|s| s.same_hierarchy(&space));
        same.then(|| PyAtom { space: atomspace.clone().unbind(), handle: h })
    }))
}
