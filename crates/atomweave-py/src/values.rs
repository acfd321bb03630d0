//! `TruthValue`, `FloatValue`, `StringValue`, `LinkValue`, and conversions
//! between core values and Python objects.

use std::collections::HashMap;
use std::sync::Arc;

use atomweave::sexpr::fmt_f64;
use atomweave::{types, TruthValue, Value, MAX_VALUE_NESTING};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString};

use crate::atom::PyAtom;
use crate::space::PySpace;

/// A truth value: `TruthValue(strength, confidence)` is upstream's
/// SimpleTruthValue; `CountTruthValue(mean, confidence, count)` the counting kind.
#[pyclass(name = "TruthValue", module = "atomweave", frozen, freelist = 256)]
#[derive(Clone, Copy)]
pub struct PyTruthValue(pub TruthValue);

#[pymethods]
impl PyTruthValue {
    #[new]
    #[pyo3(signature = (strength=1.0, confidence=0.0))]
    fn new(strength: f64, confidence: f64) -> Self {
        PyTruthValue(TruthValue::simple(strength, confidence))
    }

    /// Strength (simple) or mean (count).
    #[getter]
    fn mean(&self) -> f64 {
        self.0.mean()
    }

    /// Upstream's other name for the mean.
    #[getter]
    fn strength(&self) -> f64 {
        self.0.mean()
    }

    /// How sure the strength is, from 0 to 1.
    #[getter]
    fn confidence(&self) -> f64 {
        self.0.confidence()
    }

    /// The count (for a simple truth value, derived from the confidence as upstream does).
    #[getter]
    fn count(&self) -> f64 {
        self.0.count_of()
    }

    /// "SimpleTruthValue" or "CountTruthValue".
    #[getter]
    fn type_name(&self) -> &'static str {
        self.0.value_type().name()
    }

    /// The type's number (`types.SimpleTruthValue` or `types.CountTruthValue`).
    #[getter]
    fn r#type(&self) -> u16 {
        self.0.value_type().id()
    }

    /// The numbers: [strength, confidence] or [mean, confidence, count].
    // Python's method on a frozen class: PyO3 hands it `&self`.
    #[allow(clippy::wrong_self_convention)]
    fn to_list(&self) -> Vec<f64> {
        self.0.to_vec()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.downcast::<PyTruthValue>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __hash__(&self) -> u64 {
        self.0.to_vec().iter().fold(0u64, |h, x| h.rotate_left(17) ^ x.to_bits())
    }

    fn __repr__(&self) -> String {
        let mut s = String::new();
        atomweave::sexpr::write_tv(self.0, &mut s);
        s
    }
}

/// `CountTruthValue(mean, confidence, count)`.
#[pyfunction(name = "CountTruthValue")]
pub fn count_truth_value(mean: f64, confidence: f64, count: f64) -> PyTruthValue {
    PyTruthValue(TruthValue::count(mean, confidence, count))
}

/// A vector of floats.
#[pyclass(name = "FloatValue", module = "atomweave", frozen)]
pub struct PyFloatValue(Arc<[f64]>);

#[pymethods]
impl PyFloatValue {
    #[new]
    fn new(values: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyFloatValue(floats(values)?.into()))
    }

    /// `types.FloatValue`.
    #[getter]
    fn r#type(&self) -> u16 {
        types::FLOAT_VALUE.id()
    }

    /// The floats, as a list.
    fn to_list(&self) -> Vec<f64> {
        self.0.to_vec()
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.downcast::<PyFloatValue>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __repr__(&self) -> String {
        format!("(FloatValue {})", self.0.iter().map(|&x| fmt_f64(x)).collect::<Vec<_>>().join(" "))
    }
}

/// A vector of strings.
#[pyclass(name = "StringValue", module = "atomweave", frozen)]
pub struct PyStringValue(Arc<[String]>);

#[pymethods]
impl PyStringValue {
    #[new]
    fn new(values: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(s) = values.downcast::<PyString>() {
            return Ok(PyStringValue(vec![s.to_cow()?.into_owned()].into()));
        }
        let v: Vec<String> = values.extract().map_err(|_| PyTypeError::new_err("a StringValue holds a string or a list of strings"))?;
        Ok(PyStringValue(v.into()))
    }

    /// `types.StringValue`.
    #[getter]
    fn r#type(&self) -> u16 {
        types::STRING_VALUE.id()
    }

    /// The strings, as a list.
    fn to_list(&self) -> Vec<String> {
        self.0.to_vec()
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.downcast::<PyStringValue>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __repr__(&self) -> String {
        let mut s = String::from("(StringValue");
        for x in self.0.iter() {
            s.push(' ');
            atomweave::sexpr::write::write_str_literal(&mut s, x);
        }
        s.push(')');
        s
    }
}

/// A vector of values and atoms.
#[pyclass(name = "LinkValue", module = "atomweave", frozen)]
pub struct PyLinkValue {
    items: Vec<PyObject>,
    /// How deep LinkValues nest in it: at most `MAX_VALUE_NESTING`, as in a
    /// space, so that its drop, comparison and conversion stay shallow.
    depth: usize,
}

impl PyLinkValue {
    fn of(items: Vec<PyObject>, py: Python<'_>) -> PyResult<Self> {
        let depth = 1 + items.iter().filter_map(|x| x.bind(py).downcast::<PyLinkValue>().ok().map(|l| l.get().depth)).max().unwrap_or(0);
        if depth > MAX_VALUE_NESTING {
            return Err(PyValueError::new_err(format!("LinkValues nest at most {MAX_VALUE_NESTING} deep")));
        }
        Ok(PyLinkValue { items, depth })
    }
}

#[pymethods]
impl PyLinkValue {
    #[new]
    fn new(values: &Bound<'_, PyAny>) -> PyResult<Self> {
        // One value alone, or an iterable of them.
        let items: Vec<Bound<'_, PyAny>> = if is_value(values) { vec![values.clone()] } else { values.try_iter()?.collect::<PyResult<_>>()? };
        for x in &items {
            if !is_value(x) {
                return Err(PyTypeError::new_err(format!("a LinkValue holds Atoms and values, not {}", x.get_type().name()?)));
            }
        }
        PyLinkValue::of(items.into_iter().map(Bound::unbind).collect(), values.py())
    }

    /// `types.LinkValue`.
    #[getter]
    fn r#type(&self) -> u16 {
        types::LINK_VALUE.id()
    }

    /// The atoms and values, as a list.
    fn to_list(&self, py: Python<'_>) -> Vec<PyObject> {
        self.items.iter().map(|x| x.clone_ref(py)).collect()
    }

    fn __len__(&self) -> usize {
        self.items.len()
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.downcast::<PyLinkValue>() else { return Ok(false) };
        let o = &o.get().items;
        if o.len() != self.items.len() {
            return Ok(false);
        }
        for (a, b) in self.items.iter().zip(o) {
            // The same object is equal to itself without a walk through
            // it: LinkValues share members.
            if !a.bind(py).is(b.bind(py)) && !a.bind(py).eq(b.bind(py))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Upstream's printed form: each member on its own line, two spaces in.
    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = String::from("(LinkValue");
        for x in &self.items {
            for line in x.bind(py).str()?.to_cow()?.lines() {
                text.push_str("\n  ");
                text.push_str(line);
            }
            if text.len() > atomweave::sexpr::MAX_PRINTED {
                return Err(crate::to_py(atomweave::sexpr::TooLarge.into()));
            }
        }
        text.push(')');
        Ok(text)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut text = String::from("(LinkValue");
        for x in &self.items {
            text.push(' ');
            text.push_str(&x.bind(py).repr()?.to_cow()?);
            // A member held many times over prints at each place.
            if text.len() > atomweave::sexpr::MAX_PRINTED {
                return Err(crate::to_py(atomweave::sexpr::TooLarge.into()));
            }
        }
        text.push(')');
        Ok(text)
    }
}

/// What every value answers as upstream's Value does: its type's name and
/// the kind tests (a value is no atom).
macro_rules! value_kind {
    ($($class:ty => $t:expr),*) => {$(
        #[pymethods]
        impl $class {
            /// The type's name.
            #[getter]
            fn type_name(&self) -> &'static str {
                $t.name()
            }

            /// False: a value is not an atom.
            fn is_atom(&self) -> bool {
                false
            }

            /// False: a value is not a node.
            fn is_node(&self) -> bool {
                false
            }

            /// False: a value is not a link.
            fn is_link(&self) -> bool {
                false
            }

            /// Is the value's type `t`, or a subtype of it?
            fn is_a(&self, t: &Bound<'_, PyAny>) -> PyResult<bool> {
                Ok($t.is_a(crate::space::type_arg(t)?))
            }
        }
    )*};
}

value_kind!(PyFloatValue => types::FLOAT_VALUE, PyStringValue => types::STRING_VALUE, PyLinkValue => types::LINK_VALUE);

pub(crate) fn is_value(x: &Bound<'_, PyAny>) -> bool {
    x.is_instance_of::<PyAtom>()
        || x.is_instance_of::<PySpace>()
        || x.is_instance_of::<PyTruthValue>()
        || x.is_instance_of::<PyFloatValue>()
        || x.is_instance_of::<PyStringValue>()
        || x.is_instance_of::<PyLinkValue>()
}

fn floats(values: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    if values.is_instance_of::<PyFloat>() || (values.is_instance_of::<PyInt>() && !values.is_instance_of::<PyBool>()) {
        return Ok(vec![values.extract()?]);
    }
    values.extract().map_err(|_| PyTypeError::new_err("a FloatValue holds a number or a list of numbers"))
}

/// A Python value (an Atom, TruthValue, FloatValue, StringValue, LinkValue,
/// or a plain list of numbers or strings) as a core value.
pub(crate) fn from_py(space: &PySpace, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_in(space, py, v, &mut HashMap::new())
}

/// [`from_py`], with a memo of the LinkValues converted: one held by
/// several (`v = LinkValue([v, v])`, over and over) becomes one shared
/// core value, not a copy at each place (2^depth of them).
fn from_py_in(space: &PySpace, py: Python<'_>, v: &Bound<'_, PyAny>, memo: &mut HashMap<*mut pyo3::ffi::PyObject, Value>) -> PyResult<Value> {
    if let Ok(tv) = v.downcast::<PyTruthValue>() {
        return Ok(Value::Truth(tv.get().0));
    }
    if let Ok(f) = v.downcast::<PyFloatValue>() {
        return Ok(Value::Float(f.get().0.clone()));
    }
    if let Ok(s) = v.downcast::<PyStringValue>() {
        return Ok(Value::String(s.get().0.clone()));
    }
    if v.is_instance_of::<PyAtom>() {
        return Ok(Value::Atom(space.handle_of(v)?));
    }
    if let Ok(s) = v.downcast::<PySpace>() {
        return Ok(Value::Space(s.get().space.clone().into()));
    }
    if let Ok(l) = v.downcast::<PyLinkValue>() {
        if let Some(done) = memo.get(&v.as_ptr()) {
            return Ok(done.clone());
        }
        let items = l.get().items.iter().map(|x| from_py_in(space, py, x.bind(py), memo)).collect::<PyResult<Vec<_>>>()?;
        let value = Value::link(items);
        memo.insert(v.as_ptr(), value.clone());
        return Ok(value);
    }
    if let Ok(l) = v.downcast::<PyList>() {
        if let Ok(xs) = l.extract::<Vec<f64>>() {
            return Ok(Value::float(xs));
        }
        if let Ok(xs) = l.extract::<Vec<String>>() {
            return Ok(Value::string(xs));
        }
    }
    Err(PyTypeError::new_err(format!(
        "a value is an Atom, TruthValue, FloatValue, StringValue, LinkValue, AtomSpace or a list of numbers or strings, not {}",
        v.get_type().name()?
    )))
}

thread_local! {
    /// How many stream readings the conversion on this thread is inside.
    static STREAM_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A core value as a Python object; atoms belong to `space`.
pub(crate) fn to_py(space: &Bound<'_, PySpace>, v: Value) -> PyResult<PyObject> {
    to_py_in(space, v, &mut HashMap::new())
}

/// [`to_py`], with a memo of the LinkValues converted: a part shared in the
/// core value is one shared Python object.
fn to_py_in(space: &Bound<'_, PySpace>, v: Value, memo: &mut HashMap<*const Value, PyObject>) -> PyResult<PyObject> {
    let py = space.py();
    Ok(match v {
        Value::Truth(tv) => PyTruthValue(tv).into_pyobject(py)?.into_any().unbind(),
        Value::Float(xs) => PyFloatValue(xs).into_pyobject(py)?.into_any().unbind(),
        Value::String(xs) => PyStringValue(xs).into_pyobject(py)?.into_any().unbind(),
        Value::Bool(bs) => PyList::new(py, bs.iter().copied())?.into_any().unbind(),
        Value::Void => py.None(),
        Value::Atom(h) => PySpace::atom(space, h).into_pyobject(py)?.into_any().unbind(),
        Value::Space(s) => PySpace { space: s.space().clone() }.into_pyobject(py)?.into_any().unbind(),
        // Python's values are those of upstream's Python API: a queue is read as the LinkValue it holds.
        // Python's values are upstream Python API's: a stream gives one reading.
        // (With a memo of its own: the reading is dropped after, and its parts' addresses with it.)
        Value::Stream(st) => {
            // A stream whose reading holds itself would be read without end.
            let depth = STREAM_DEPTH.get();
            if depth >= MAX_VALUE_NESTING {
                return Err(PyValueError::new_err(format!("streams read within streams more than {MAX_VALUE_NESTING} deep")));
            }
            STREAM_DEPTH.set(depth + 1);
            let reading = st.sample().map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string())).and_then(|v| to_py(space, v));
            STREAM_DEPTH.set(depth);
            reading?
        }
        Value::Queue(q) => {
            let objs = q.snapshot().into_iter().map(|x| to_py_in(space, x, memo)).collect::<PyResult<Vec<_>>>()?;
            PyLinkValue::of(objs, py)?.into_pyobject(py)?.into_any().unbind()
        }
        Value::Link(items) => {
            if let Some(done) = memo.get(&items.as_ptr()) {
                return Ok(done.clone_ref(py));
            }
            let objs = items.iter().map(|x| to_py_in(space, x.clone(), memo)).collect::<PyResult<Vec<_>>>()?;
            let obj = PyLinkValue::of(objs, py)?.into_pyobject(py)?.into_any().unbind();
            memo.insert(items.as_ptr(), obj.clone_ref(py));
            obj
        }
    })
}
