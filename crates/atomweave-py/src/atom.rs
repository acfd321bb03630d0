//! `Atom`: a handle beside the space that holds it.

use atomweave::sexpr::{self, Form};
use atomweave::{AtomSpace, Handle, TruthValue};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyBool;

use crate::space::{type_arg, PySpace};
use crate::values::{self, PyTruthValue};
use crate::OrPy;

/// An atom: a node or a link of an AtomSpace. Atoms are made by the space
/// (`add_node`, `add_link`) or by the type constructors (`ConceptNode("x")`);
/// two Atom objects for the same atom are equal and hash alike.
#[pyclass(name = "Atom", module = "atomweave", frozen, freelist = 1024)]
pub struct PyAtom {
    pub(crate) space: Py<PySpace>,
    pub(crate) handle: Handle,
}

impl PyAtom {
    fn core(&self) -> &AtomSpace {
        &self.space.get().space
    }

    fn atoms(&self, py: Python<'_>, hs: impl IntoIterator<Item = Handle>) -> Vec<PyAtom> {
        hs.into_iter().map(|h| PyAtom { space: self.space.clone_ref(py), handle: h }).collect()
    }

    fn gone(&self) -> PyErr {
        PyRuntimeError::new_err(format!("atom {} is no longer in its AtomSpace", self.handle))
    }
}

/// The atom's free variables: its VariableNodes and GlobNodes that no
/// scope inside it binds, in order of first appearance.
#[pyfunction]
pub fn get_free_variables(py: Python<'_>, atom: PyRef<'_, PyAtom>) -> PyResult<Vec<PyAtom>> {
    let vars = atomweave::query::free_variables(atom.core(), atom.handle).or_py()?;
    Ok(atom.atoms(py, vars))
}

/// Whether the atom has no free variables.
#[pyfunction]
pub fn is_closed(atom: PyRef<'_, PyAtom>) -> PyResult<bool> {
    Ok(atomweave::query::free_variables(atom.core(), atom.handle).or_py()?.is_empty())
}

#[pymethods]
impl PyAtom {
    /// The node's name ("" for a link).
    #[getter]
    fn name(&self) -> PyResult<&str> {
        let core = self.core();
        match core.name(self.handle) {
            Some(n) => Ok(n),
            None if core.contains(self.handle) => Ok(""),
            None => Err(self.gone()),
        }
    }

    /// The link's outgoing set (empty for a node).
    #[getter]
    fn out(&self, py: Python<'_>) -> PyResult<Vec<PyAtom>> {
        let out = self.core().outgoing(self.handle).ok_or_else(|| self.gone())?;
        Ok(self.atoms(py, out.iter().copied()))
    }

    /// The links that hold this atom.
    #[getter]
    fn incoming(&self, py: Python<'_>) -> Vec<PyAtom> {
        match self.core().incoming(self.handle) {
            Some(inc) => self.atoms(py, inc),
            None => Vec::new(),
        }
    }

    /// The links of type `t` that hold this atom.
    fn incoming_by_type(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Vec<PyAtom>> {
        Ok(self.atoms(py, self.core().incoming_by_type(self.handle, type_arg(t)?)))
    }

    /// Number of atoms in the outgoing set.
    #[getter]
    fn arity(&self) -> usize {
        self.core().arity(self.handle).unwrap_or(0)
    }

    /// The truth value.
    #[getter]
    fn tv(&self, py: Python<'_>) -> PyResult<Py<PyTruthValue>> {
        let tv = self.core().get_tv(self.handle).ok_or_else(|| self.gone())?;
        if tv.is_default() {
            // Truth values are immutable: most atoms share one default object.
            static DEFAULT: GILOnceCell<Py<PyTruthValue>> = GILOnceCell::new();
            return Ok(DEFAULT.get_or_try_init(py, || Py::new(py, PyTruthValue(tv)))?.clone_ref(py));
        }
        Py::new(py, PyTruthValue(tv))
    }

    #[setter]
    fn set_tv(&self, tv: &Bound<'_, PyTruthValue>) -> PyResult<()> {
        self.core().set_tv(self.handle, tv.get().0).or_py()
    }

    /// Sets the truth value to (`mean`, `confidence`) and returns the atom:
    /// `Concept("a").truth_value(0.5, 0.8)`, upstream's chaining form.
    fn truth_value<'py>(slf: Bound<'py, Self>, mean: f64, confidence: f64) -> PyResult<Bound<'py, Self>> {
        slf.get().core().set_tv(slf.get().handle, TruthValue::simple(mean, confidence)).or_py()?;
        Ok(slf)
    }

    /// The type's number (compare with `atomweave.types.ConceptNode`).
    #[getter]
    fn r#type(&self) -> PyResult<u16> {
        self.core().get_type(self.handle).map(|t| t.id()).ok_or_else(|| self.gone())
    }

    /// The type's name, e.g. "ConceptNode".
    #[getter]
    fn type_name(&self) -> PyResult<&'static str> {
        self.core().get_type(self.handle).map(|t| t.name()).ok_or_else(|| self.gone())
    }

    /// The space that holds the atom.
    #[getter]
    fn atomspace(&self, py: Python<'_>) -> Py<PySpace> {
        self.space.clone_ref(py)
    }

    /// The handle's number: stable for the atom's life, never reused.
    #[getter]
    fn handle(&self) -> u32 {
        self.handle.to_u32()
    }

    /// The value under `key` (an Atom), or None.
    fn get_value(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Option<PyObject>> {
        let space = self.space.bind(py);
        let k = space.get().key_of(key)?;
        if !self.core().contains(self.handle) {
            return Err(self.gone());
        }
        self.core().get_value(self.handle, k).map(|v| values::to_py(space, v)).transpose()
    }

    /// Sets the value under `key` (an Atom); None removes it.
    fn set_value(&self, py: Python<'_>, key: &Bound<'_, PyAny>, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let space = self.space.get();
        let k = space.key_of(key)?;
        match value {
            None => self.core().remove_value(self.handle, k).or_py(),
            Some(v) => self.core().set_value(self.handle, k, values::from_py(space, py, v)?).or_py(),
        }
    }

    /// The keys of the atom's values (the truth value's key when it has one).
    fn get_keys(&self, py: Python<'_>) -> PyResult<Vec<PyAtom>> {
        let core = self.core();
        let mut keys: Vec<Handle> = core.key_values(self.handle).into_iter().map(|(k, _)| k).collect();
        if !core.get_tv(self.handle).unwrap_or_default().is_default() {
            let tv_key = core.value_key(sexpr::TV_KEY).or_py()?;
            keys.insert(0, tv_key);
        }
        Ok(self.atoms(py, keys))
    }

    /// Is the atom's type `t`, or a subtype of it?
    fn is_a(&self, t: &Bound<'_, PyAny>) -> PyResult<bool> {
        let parent = type_arg(t)?;
        Ok(self.core().get_type(self.handle).ok_or_else(|| self.gone())?.is_a(parent))
    }

    /// True: an atom is an atom (values answer False).
    fn is_atom(&self) -> bool {
        true
    }

    /// Is the atom a node?
    fn is_node(&self) -> bool {
        self.core().get_type(self.handle).is_some_and(|t| t.is_node())
    }

    /// Is the atom a link?
    fn is_link(&self) -> bool {
        self.core().get_type(self.handle).is_some_and(|t| t.is_link())
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyObject {
        let py = other.py();
        let Ok(o) = other.downcast::<PyAtom>() else { return py.NotImplemented() };
        let o = o.get();
        let same = o.handle == self.handle && o.core().same_hierarchy(self.core());
        let r = match op {
            CompareOp::Eq => same,
            CompareOp::Ne => !same,
            // By content, as the dumps order atoms: sorted() lists the same
            // atoms in the same order in any space (upstream's test of a
            // load round trip sorts two spaces' atoms and compares).
            _ => op.matches(atomweave::content_cmp(self.core(), self.handle, o.core(), o.handle).then_with(|| {
                if same {
                    std::cmp::Ordering::Equal
                } else {
                    self.handle.cmp(&o.handle)
                }
            })),
        };
        PyBool::new(py, r).to_owned().into_any().unbind()
    }

    fn __hash__(&self) -> u64 {
        u64::from(self.handle.to_u32()).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 1
    }

    /// The atom in Atomese, as the Scheme REPL prints it.
    fn __repr__(&self) -> PyResult<String> {
        sexpr::atom_to_string(self.core(), self.handle, Form::Repl).or_py()
    }

    fn __str__(&self) -> PyResult<String> {
        self.__repr__()
    }

    /// The atom on one line, with its values: the form Atomese files and the network use.
    fn long_string(&self) -> PyResult<String> {
        sexpr::atom_to_string(self.core(), self.handle, Form::Wire).or_py()
    }
}
