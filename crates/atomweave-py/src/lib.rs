//! `atomweave._atomweave`: the native half of the `atomweave` Python package.
//!
//! A thin PyO3 layer over the Rust core: Python objects hold a core
//! [`AtomSpace`](atomweave::AtomSpace) (a shared handle to a thread-safe
//! space) or an atom's [`Handle`](atomweave::Handle) beside its space. It adds
//! no logic of its own beyond conversions; the pure-Python half
//! (`python/atomweave/`) holds `types`, `type_constructors` and the benchmark.
//! It is not a second implementation of anything in the core.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyTuple, PyType};

mod atom;
mod ctor;
pub mod grounded;
mod interrupt;
pub mod scheme;
pub mod space;
mod storage;
mod values;

pub use atom::PyAtom;
pub use space::PySpace;

/// A core error as the Python exception a user expects: type mistakes as
/// TypeError, bad names, values and queries as ValueError, a callback's
/// KeyboardInterrupt as KeyboardInterrupt, the rest as RuntimeError.
pub(crate) fn to_py(e: atomweave::Error) -> PyErr {
    use atomweave::Error as E;
    let msg = e.to_string();
    match e {
        E::NotANodeType(_) | E::NotALinkType(_) => Python::with_gil(|py| match ATOM_TYPE_ERROR.get(py) {
            Some(t) => PyErr::from_type(t.bind(py).clone(), msg),
            None => PyTypeError::new_err(msg),
        }),
        E::UnknownType(_) | E::InvalidTypeName(_) | E::InvalidValue(_) | E::Query(_) | E::Parse(_) | E::TypeDefinition(_) => PyValueError::new_err(msg),
        E::Interrupted(_) => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

/// `atomweave.AtomTypeError`: a node type given for a link or the other way
/// round. Both a TypeError (Python's word for it) and a RuntimeError
/// (what upstream raised), so code written for either catches it.
static ATOM_TYPE_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

fn atom_type_error(py: Python<'_>) -> PyResult<&Py<PyType>> {
    ATOM_TYPE_ERROR.get_or_try_init(py, || {
        let bases = PyTuple::new(py, [py.get_type::<pyo3::exceptions::PyTypeError>(), py.get_type::<pyo3::exceptions::PyRuntimeError>()])?;
        let attrs = PyDict::new(py);
        attrs.set_item("__module__", "atomweave")?;
        attrs.set_item("__doc__", "A node type given where a link type belongs, or the other way round.")?;
        let t = py.get_type::<PyType>().call1(("AtomTypeError", bases, attrs))?;
        Ok(t.downcast_into::<PyType>()?.unbind())
    })
}

pub(crate) trait OrPy<T> {
    fn or_py(self) -> PyResult<T>;
}

impl<T> OrPy<T> for atomweave::Result<T> {
    #[inline]
    fn or_py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

impl<T> OrPy<T> for Result<T, atomweave::sexpr::TooLarge> {
    fn or_py(self) -> PyResult<T> {
        self.map_err(|e| to_py(e.into()))
    }
}

/// The module. Public so that a library embedding Python (atomweave-guile's)
/// can make it before the interpreter would look for it.
#[pymodule]
pub fn _atomweave(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A FileStorageNode's file may hold Scheme, as load_file's may.
    if let Some(s) = scheme::linked() {
        s.install_file_loader();
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    grounded::register();
    m.add_class::<space::PySpace>()?;
    m.add_class::<atom::PyAtom>()?;
    m.add_class::<space::AtomIter>()?;
    m.add_class::<values::PyTruthValue>()?;
    m.add_class::<values::PyFloatValue>()?;
    m.add_class::<values::PyStringValue>()?;
    m.add_class::<values::PyLinkValue>()?;
    m.add_class::<ctor::TypeConstructor>()?;
    m.add("AtomTypeError", atom_type_error(m.py())?.clone_ref(m.py()))?;
    m.add_function(wrap_pyfunction!(values::count_truth_value, m)?)?;
    m.add_function(wrap_pyfunction!(atom::get_free_variables, m)?)?;
    m.add_function(wrap_pyfunction!(atom::is_closed, m)?)?;
    m.add_function(wrap_pyfunction!(space::set_default_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(space::get_default_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(space::push_default_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(space::pop_default_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(space::execute_atom, m)?)?;
    m.add_function(wrap_pyfunction!(scheme::scheme_eval, m)?)?;
    m.add_function(wrap_pyfunction!(scheme::scheme_eval_h, m)?)?;
    m.add_function(wrap_pyfunction!(scheme::scheme_eval_v, m)?)?;
    m.add_function(wrap_pyfunction!(scheme::scheme_eval_as, m)?)?;
    m.add_function(wrap_pyfunction!(space::evaluate_atom, m)?)?;
    m.add_function(wrap_pyfunction!(space::load_file, m)?)?;
    m.add_function(wrap_pyfunction!(space::load_str, m)?)?;
    m.add_function(wrap_pyfunction!(space::dump, m)?)?;
    #[cfg(feature = "bench")]
    m.add_function(wrap_pyfunction!(space::_bench_space, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::type_table, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::type_of_name, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::get_type_name, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::is_a, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::register_type, m)?)?;
    m.add_function(wrap_pyfunction!(ctor::load_types, m)?)?;
    m.add_function(wrap_pyfunction!(storage::cog_open, m)?)?;
    m.add_function(wrap_pyfunction!(storage::cog_close, m)?)?;
    m.add_function(wrap_pyfunction!(storage::store_atom, m)?)?;
    m.add_function(wrap_pyfunction!(storage::store_value, m)?)?;
    m.add_function(wrap_pyfunction!(storage::update_value, m)?)?;
    m.add_function(wrap_pyfunction!(storage::fetch_atom, m)?)?;
    m.add_function(wrap_pyfunction!(storage::fetch_value, m)?)?;
    m.add_function(wrap_pyfunction!(storage::fetch_incoming_set, m)?)?;
    m.add_function(wrap_pyfunction!(storage::fetch_incoming_by_type, m)?)?;
    m.add_function(wrap_pyfunction!(storage::load_atoms_of_type, m)?)?;
    m.add_function(wrap_pyfunction!(storage::load_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(storage::store_atomspace, m)?)?;
    m.add_function(wrap_pyfunction!(storage::barrier, m)?)?;
    m.add_function(wrap_pyfunction!(storage::cog_delete, m)?)?;
    m.add_function(wrap_pyfunction!(storage::cog_delete_recursive, m)?)?;
    Ok(())
}
