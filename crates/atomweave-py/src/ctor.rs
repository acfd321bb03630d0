//! Type constructors (`ConceptNode("x")`, `InheritanceLink(a, b)`) and the
//! type table as Python sees it.

use atomweave::{types, Handle, Type};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::atom::PyAtom;
use crate::space::{default_space, type_arg, PySpace};
use crate::values::PyTruthValue;
use crate::OrPy;

/// Makes atoms of one type in the default space (or in `atomspace=`):
/// `ConceptNode("name", tv=None)`, `InheritanceLink(a, b, tv=None)`.
#[pyclass(module = "atomweave", frozen)]
pub struct TypeConstructor {
    t: Type,
}

#[pymethods]
impl TypeConstructor {
    #[new]
    fn new(t: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(TypeConstructor { t: type_arg(t)? })
    }

    #[pyo3(signature = (*args, tv=None, atomspace=None))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, tv: Option<&Bound<'_, PyTruthValue>>, atomspace: Option<Py<PySpace>>) -> PyResult<PyAtom> {
        let space = match atomspace {
            Some(s) => s,
            None => default_space(py)?,
        };
        let me = space.get();
        // Upstream passes the truth value last, positionally, as well as by name.
        let mut args: Vec<Bound<'_, PyAny>> = args.iter().collect();
        let positional_tv = match args.last() {
            Some(last) if last.is_instance_of::<PyTruthValue>() => args.pop(),
            _ => None,
        };
        let tv = match (tv, &positional_tv) {
            (Some(_), Some(_)) => return Err(PyTypeError::new_err(format!("{}() got two truth values", self.t.name()))),
            (Some(tv), None) => Some(tv.clone()),
            (None, Some(p)) => Some(p.downcast::<PyTruthValue>()?.clone()),
            (None, None) => None,
        };
        let h = if self.t.is_node() {
            let [name] = &args[..] else {
                return Err(PyTypeError::new_err(format!("{}() takes a name (and a truth value), not {} arguments", self.t.name(), args.len())));
            };
            let name = name.downcast::<PyString>().map_err(|_| PyTypeError::new_err(format!("{}() takes a name (a str)", self.t.name())))?;
            me.space.add_node(self.t, &name.to_cow()?).or_py()?
        } else if let Some(text) = args.first().filter(|_| self.t == atomweave::types::SEXPR_AST && args.len() == 1).and_then(|a| a.downcast::<PyString>().ok())
        {
            // An s-expression as text: its tree (see atomweave::foreign).
            atomweave::foreign::sexpr(&mut &me.space, &text.to_cow()?).or_py()?
        } else {
            // Members as arguments, or one list of them.
            let single_list = args.len() == 1 && !args[0].is_instance_of::<PyAtom>();
            let out: Vec<Handle> = if single_list {
                args[0].try_iter()?.map(|x| me.handle_of(&x?)).collect::<PyResult<_>>()?
            } else {
                args.iter().map(|x| me.handle_of(x)).collect::<PyResult<_>>()?
            };
            me.space.add_link(self.t, &out).or_py()?
        };
        if let Some(tv) = tv {
            me.space.set_tv(h, tv.get().0).or_py()?;
        }
        Ok(PyAtom { space, handle: h })
    }

    /// The type this constructor makes.
    #[getter]
    fn r#type(&self) -> u16 {
        self.t.id()
    }

    fn __repr__(&self) -> String {
        format!("<type constructor {}>", self.t.name())
    }
}

/// Every type: (name, number, short name or None, is an atom type: a node or link).
#[pyfunction]
pub fn type_table() -> Vec<(&'static str, u16, Option<&'static str>, bool)> {
    Type::all().into_iter().map(|t| (t.name(), t.id(), t.short_name(), t.is_node() || t.is_link())).collect()
}

/// The type of this name, or None.
#[pyfunction]
pub fn type_of_name(name: &str) -> Option<u16> {
    Type::from_name(name).map(Type::id)
}

/// The name of type `t`: "" for a number no type has, and upstream's name
/// for `types.NO_TYPE`, as upstream's name server answers.
#[pyfunction]
pub fn get_type_name(t: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    if let Ok(id) = t.extract::<i64>() {
        return Ok(match u16::try_from(id).ok().and_then(Type::from_id) {
            Some(t) if t == Type::from_name("Notype").expect("the table has Notype") => "*** Bottom Type! ***",
            Some(t) => t.name(),
            None => "",
        });
    }
    Ok(type_arg(t)?.name())
}

/// Is `t` the type `parent` or one of its subtypes?
#[pyfunction]
pub fn is_a(t: &Bound<'_, PyAny>, parent: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(type_arg(t)?.is_a(type_arg(parent)?))
}

/// Adds a type to the table (as upstream modules do) and returns its number.
#[pyfunction]
#[pyo3(signature = (name, parents, short_name=None))]
pub fn register_type(name: &str, parents: Vec<Bound<'_, PyAny>>, short_name: Option<&str>) -> PyResult<u16> {
    if parents.is_empty() {
        return Err(PyValueError::new_err("a new type needs at least one parent type"));
    }
    let parents = parents.iter().map(type_arg).collect::<PyResult<Vec<_>>>()?;
    Ok(types::register_type(name, &parents, short_name).or_py()?.id())
}

/// Enables a type family of upstream's other modules ("nlp", "bio", "pln",
/// "spacetime", "attention", "legacy"): registers its types, as importing
/// the module did upstream; returns their numbers.
#[pyfunction]
pub fn load_types(family: &str) -> PyResult<Vec<u16>> {
    Ok(types::load_family(family).or_py()?.into_iter().map(|t| t.id()).collect())
}
