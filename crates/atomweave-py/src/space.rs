//! `AtomSpace`, the default-space stack, query execution, Atomese files.

use atomweave::query::{self, Executed};
use atomweave::sexpr::{self, Form, Select};
use atomweave::{AtomSpace, Handle, Type};
use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::atom::PyAtom;
use crate::values::{self, PyTruthValue};
use crate::OrPy;

/// A thread-safe AtomSpace. `AtomSpace()` makes a new, empty space;
/// `AtomSpace(base, ...)` a child space (a frame) that sees its bases'
/// atoms and keeps its own changes.
#[pyclass(name = "AtomSpace", module = "atomweave", frozen, weakref)]
pub struct PySpace {
    pub(crate) space: AtomSpace,
}

impl PySpace {
    /// A Python AtomSpace over a core space (for a library that embeds
    /// Python beside the core and shares its spaces).
    pub fn wrap(space: AtomSpace) -> PySpace {
        PySpace { space }
    }
}

/// A type argument: a type number (`types.ConceptNode`) or a name.
pub(crate) fn type_arg(t: &Bound<'_, PyAny>) -> PyResult<Type> {
    if let Ok(id) = t.extract::<i64>() {
        return u16::try_from(id).ok().and_then(Type::from_id).ok_or_else(|| PyValueError::new_err(format!("no atom type has number {id}")));
    }
    if let Ok(name) = t.downcast::<PyString>() {
        let name = name.to_cow()?;
        return Type::from_name(&name).ok_or_else(|| PyValueError::new_err(format!("unknown atom type {name:?}")));
    }
    Err(PyTypeError::new_err(format!("an atom type is a number from atomweave.types or a type name, not {}", t.get_type().name()?)))
}

/// An atom type given to upstream's `add_node` and `add_link`: a number
/// from `atomweave.types`, as upstream takes (a name is refused as there).
fn type_number(t: &Bound<'_, PyAny>) -> PyResult<Type> {
    if t.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "an atom type is a number from atomweave.types (types.{0}), not the string {0:?}; get_type({0:?}) gives it",
            t.extract::<String>()?
        )));
    }
    type_arg(t)
}

impl PySpace {
    /// The handle of `atom` in this space: its own handle within one
    /// hierarchy, else a copy made here by content (as upstream adds an
    /// atom of one space to another).
    pub(crate) fn handle_of(&self, atom: &Bound<'_, PyAny>) -> PyResult<Handle> {
        let atom = atom
            .downcast::<PyAtom>()
            .map_err(|_| PyTypeError::new_err(format!("expected an Atom, not {}", atom.get_type().name().map(|n| n.to_string()).unwrap_or_default())))?;
        let a = atom.get();
        self.space.import(&a.space.get().space, a.handle).or_py()
    }

    /// The handle of a value's key, with upstream's message for a key that
    /// is not an atom.
    pub(crate) fn key_of(&self, key: &Bound<'_, PyAny>) -> PyResult<Handle> {
        if !key.is_instance_of::<PyAtom>() {
            return Err(PyTypeError::new_err(format!("key should be an instance of Atom, got {} instead", key.get_type().repr()?)));
        }
        self.handle_of(key)
    }

    pub(crate) fn atom(slf: &Bound<'_, Self>, h: Handle) -> PyAtom {
        PyAtom { space: slf.clone().unbind(), handle: h }
    }

    fn with_tv(&self, h: Handle, tv: Option<&Bound<'_, PyTruthValue>>) -> PyResult<()> {
        if let Some(tv) = tv {
            self.space.set_tv(h, tv.get().0).or_py()?;
        }
        Ok(())
    }

    fn handles(&self, outgoing: &Bound<'_, PyAny>) -> PyResult<Vec<Handle>> {
        let mut out = Vec::new();
        self.handles_into(outgoing, &mut out)?;
        Ok(out)
    }

    /// Appends the handles of `outgoing` to `out`.
    fn handles_into(&self, outgoing: &Bound<'_, PyAny>, out: &mut Vec<Handle>) -> PyResult<()> {
        for x in outgoing.try_iter().map_err(|_| PyTypeError::new_err("a link's outgoing set is a list of Atoms"))? {
            out.push(self.handle_of(&x?)?);
        }
        Ok(())
    }
}

#[pymethods]
impl PySpace {
    #[new]
    #[pyo3(signature = (*bases))]
    fn new(bases: Vec<Bound<'_, PySpace>>) -> PyResult<Self> {
        if bases.is_empty() {
            return Ok(PySpace { space: AtomSpace::new() });
        }
        let bases: Vec<&AtomSpace> = bases.iter().map(|b| &b.get().space).collect();
        Ok(PySpace { space: AtomSpace::new_child(&bases).or_py()? })
    }

    /// A new space over the LMDB store at `url`, read as calls need its
    /// atoms (queries, incoming sets, values), never loaded whole; changes
    /// stay in the space until stored.
    #[staticmethod]
    fn open(py: Python<'_>, url: &str) -> PyResult<PySpace> {
        let space = py.allow_threads(|| atomweave_store::read_through::open_space(url)).map_err(crate::storage::store_err)?;
        Ok(PySpace { space })
    }

    /// Adds (or finds) the node of type `t` and this name.
    #[pyo3(signature = (t, name, tv=None))]
    fn add_node(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, name: &str, tv: Option<&Bound<'_, PyTruthValue>>) -> PyResult<PyAtom> {
        let me = slf.get();
        let h = me.space.add_node(type_number(t)?, name).or_py()?;
        me.with_tv(h, tv)?;
        Ok(Self::atom(slf, h))
    }

    /// Adds (or finds) the link of type `t` over these atoms.
    #[pyo3(signature = (t, outgoing, tv=None))]
    fn add_link(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, outgoing: &Bound<'_, PyAny>, tv: Option<&Bound<'_, PyTruthValue>>) -> PyResult<PyAtom> {
        let me = slf.get();
        let out = me.handles(outgoing)?;
        let h = me.space.add_link(type_number(t)?, &out).or_py()?;
        me.with_tv(h, tv)?;
        Ok(Self::atom(slf, h))
    }

    /// Adds (or finds) many links at once: `links` yields `(type, outgoing)`
    /// pairs; returns the links in the same order. For bulk loads: the
    /// links' memory is fetched ahead and the space is locked once. Every
    /// link is checked first: if one is bad, none is added.
    fn add_links(slf: &Bound<'_, Self>, links: &Bound<'_, PyAny>) -> PyResult<Vec<PyAtom>> {
        let me = slf.get();
        let mut batch = atomweave::LinkBatch::new();
        // One buffer for every link's members.
        let mut out = Vec::new();
        let pairs = links.try_iter().map_err(|_| PyTypeError::new_err("add_links() takes an iterable of (type, outgoing) pairs"))?;
        for pair in pairs {
            let pair = pair?;
            let (t, members): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "add_links() takes (type, outgoing) pairs, not {}",
                    pair.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))
            })?;
            out.clear();
            me.handles_into(&members, &mut out)?;
            batch.push(type_arg(&t)?, &out);
        }
        let added = slf.py().allow_threads(|| me.space.add_links(&batch)).or_py()?;
        Ok(added.into_iter().map(|h| Self::atom(slf, h)).collect())
    }

    /// `add_node` when `name` is given, `add_link` when `out` is; the type
    /// by number or by name.
    #[pyo3(signature = (t, name=None, out=None, tv=None))]
    fn add(
        slf: &Bound<'_, Self>,
        t: &Bound<'_, PyAny>,
        name: Option<&str>,
        out: Option<&Bound<'_, PyAny>>,
        tv: Option<&Bound<'_, PyTruthValue>>,
    ) -> PyResult<PyAtom> {
        let ty = type_arg(t)?;
        let t = &ty.id().into_pyobject(slf.py())?.into_any();
        match (name, out) {
            (Some(name), None) => Self::add_node(slf, t, name, tv),
            (None, Some(out)) => Self::add_link(slf, t, out, tv),
            (None, None) if ty.is_link() => Self::add_link(slf, t, &PyList::empty(slf.py()), tv),
            _ => Err(PyValueError::new_err("add() takes a name (for a node) or an outgoing list (for a link), not both")),
        }
    }

    /// Removes the atom; with `recursive`, the links holding it too.
    /// Returns False when it cannot (not here, or held by links).
    #[pyo3(signature = (atom, recursive=false))]
    fn remove(&self, py: Python<'_>, atom: &Bound<'_, PyAny>, recursive: bool) -> PyResult<bool> {
        if !atom.is_instance_of::<PyAtom>() {
            return Err(PyTypeError::new_err(format!("remove() takes an Atom, not {}", atom.get_type().name()?)));
        }
        if !self.__contains__(atom) {
            return Ok(false);
        }
        let h = self.handle_of(atom)?;
        Ok(py.allow_threads(|| self.space.extract(h, recursive)).is_ok())
    }

    /// Removes every atom.
    fn clear(&self, py: Python<'_>) {
        py.allow_threads(|| self.space.clear())
    }

    /// The atoms of type `t` (and, with `subtype`, of its subtypes).
    #[pyo3(signature = (t, subtype=true))]
    fn get_atoms_by_type(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, subtype: bool) -> PyResult<Vec<PyAtom>> {
        let t = type_arg(t)?;
        let me = slf.get();
        // The value keys are not the user's atoms (upstream holds them in no space).
        let keys = sexpr::value_key_atoms(|t, n| me.space.get_node(t, n));
        let hs: Vec<Handle> = slf.py().allow_threads(|| me.space.handles_by_type(t, subtype).filter(|h| !keys.contains(h)).collect());
        Ok(hs.into_iter().map(|h| Self::atom(slf, h)).collect())
    }

    /// The node of this type and name, or None.
    fn get_node(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<PyAtom>> {
        Ok(slf.get().space.get_node(type_arg(t)?, name).map(|h| Self::atom(slf, h)))
    }

    /// The link of this type and outgoing set, or None.
    fn get_link(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, outgoing: &Bound<'_, PyAny>) -> PyResult<Option<PyAtom>> {
        let out = slf.get().handles(outgoing)?;
        Ok(slf.get().space.get_link(type_arg(t)?, &out).map(|h| Self::atom(slf, h)))
    }

    /// Whether `atom` is an atom of this space (a TypeError for anything
    /// but an Atom).
    fn is_valid(&self, atom: &Bound<'_, PyAny>) -> PyResult<bool> {
        if !atom.is_instance_of::<PyAtom>() {
            return Err(PyTypeError::new_err(format!("is_valid() takes an Atom, not {}", atom.get_type().name()?)));
        }
        Ok(self.__contains__(atom))
    }

    /// Whether the node of type `t` and this name is here.
    fn is_node_in_atomspace(&self, t: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
        Ok(self.space.get_node(type_arg(t)?, name).is_some())
    }

    /// Whether the link of type `t` over these atoms is here.
    fn is_link_in_atomspace(&self, t: &Bound<'_, PyAny>, outgoing: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.space.get_link(type_arg(t)?, &self.handles(outgoing)?).is_some())
    }

    /// `atoms` and every link holding one of them, each once, in the order
    /// first met (upstream's, deprecated there).
    #[staticmethod]
    fn include_incoming(atoms: Vec<Bound<'_, PyAtom>>) -> Vec<PyAtom> {
        include(atoms, |space, h| space.incoming(h).map(|i| i.to_vec()).unwrap_or_default())
    }

    /// `atoms` and the members of each, each once, in the order first met
    /// (upstream's, deprecated there).
    #[staticmethod]
    fn include_outgoing(atoms: Vec<Bound<'_, PyAtom>>) -> Vec<PyAtom> {
        include(atoms, |space, h| space.outgoing(h).map(<[Handle]>::to_vec).unwrap_or_default())
    }

    /// Number of atoms.
    fn size(&self) -> usize {
        self.space.size()
    }

    fn __len__(&self) -> usize {
        self.space.size()
    }

    fn __contains__(&self, atom: &Bound<'_, PyAny>) -> bool {
        atom.downcast::<PyAtom>().is_ok_and(|a| {
            let a = a.get();
            a.space.get().space.same_hierarchy(&self.space) && self.space.contains(a.handle)
        })
    }

    /// Every atom; handles are taken when iteration starts (4 bytes each),
    /// Atom objects made one at a time.
    fn __iter__(slf: &Bound<'_, Self>) -> AtomIter {
        let me = slf.get();
        let handles: Vec<Handle> = slf.py().allow_threads(|| me.space.handles_by_type(atomweave::types::ATOM, true).collect());
        AtomIter { space: slf.clone().unbind(), handles, next: AtomicUsize::new(0) }
    }

    /// Sets the value of `atom` under `key` (an Atom).
    fn set_value(&self, py: Python<'_>, atom: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let (h, k) = (self.handle_of(atom)?, self.handle_of(key)?);
        let v = values::from_py(self, py, value)?;
        self.space.set_value(h, k, v).or_py()
    }

    /// Sets the truth value of `atom`.
    fn set_truthvalue(&self, atom: &Bound<'_, PyAny>, tv: &Bound<'_, PyTruthValue>) -> PyResult<()> {
        let h = self.handle_of(atom)?;
        self.space.set_tv(h, tv.get().0).or_py()
    }

    /// A new child space (frame) of this one.
    fn new_child(&self) -> PyResult<PySpace> {
        Ok(PySpace { space: AtomSpace::new_child(&[&self.space]).or_py()? })
    }

    /// The base spaces of a child space.
    #[getter]
    fn bases(&self) -> Vec<PySpace> {
        self.space.bases().iter().map(|b| PySpace { space: b.clone() }).collect()
    }

    /// Bytes the space has allocated, by its own count (for the benchmarks).
    fn _heap_bytes(&self) -> usize {
        self.space.heap_bytes()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.downcast::<PySpace>().is_ok_and(|o| o.get().space == self.space)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        BuildHasherDefault::<DefaultHasher>::default().hash_one(&self.space)
    }

    fn __repr__(&self) -> String {
        format!("<AtomSpace of {} atoms>", self.space.size())
    }
}

// Each thread's pushed default spaces, innermost last, as upstream keeps
// them; a thread with none uses the process-wide default.
thread_local! {
    static STACK: RefCell<Vec<Py<PySpace>>> = const { RefCell::new(Vec::new()) };
}
static PROCESS_DEFAULT: Mutex<Option<Py<PySpace>>> = Mutex::new(None);

/// The default space: this thread's innermost, else the process-wide one
/// (made on first use).
pub(crate) fn default_space(py: Python<'_>) -> PyResult<Py<PySpace>> {
    if let Some(s) = STACK.with(|st| st.borrow().last().map(|s| s.clone_ref(py))) {
        return Ok(s);
    }
    let mut d = PROCESS_DEFAULT.lock();
    if d.is_none() {
        *d = Some(Py::new(py, PySpace { space: AtomSpace::new() })?);
    }
    Ok(d.as_ref().expect("set").clone_ref(py))
}

/// `atoms` and, for each, the atoms `more` names in its space, each once.
fn include(atoms: Vec<Bound<'_, PyAtom>>, more: impl Fn(&AtomSpace, Handle) -> Vec<Handle>) -> Vec<PyAtom> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for a in &atoms {
        let (space, h) = (&a.get().space, a.get().handle);
        for x in std::iter::once(h).chain(more(&space.get().space, h)) {
            if seen.insert((space.as_ptr() as usize, x)) {
                out.push(PyAtom { space: space.clone_ref(a.py()), handle: x });
            }
        }
    }
    out
}

/// Makes `atomspace` the default space: of this thread, replacing its
/// innermost pushed one; with none pushed, of every thread that has none.
#[pyfunction]
pub fn set_default_atomspace(atomspace: Py<PySpace>) {
    let rest = STACK.with(|st| match st.borrow_mut().last_mut() {
        Some(top) => {
            *top = atomspace;
            None
        }
        None => Some(atomspace),
    });
    if let Some(space) = rest {
        *PROCESS_DEFAULT.lock() = Some(space);
    }
}

/// Runs `f` with `space` as this thread's default space (a grounded
/// procedure's atoms go where its call runs); the stack is as before after.
pub(crate) fn with_default<R>(space: Py<PySpace>, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            STACK.with(|st| st.borrow_mut().truncate(self.0));
        }
    }
    let _restore = Restore(STACK.with(|st| {
        let mut st = st.borrow_mut();
        st.push(space);
        st.len() - 1
    }));
    f()
}

/// The default space: what type constructors add atoms to.
#[pyfunction]
pub fn get_default_atomspace(py: Python<'_>) -> PyResult<Py<PySpace>> {
    default_space(py)
}

/// Pushes `atomspace`, or a new child of the current default, as this
/// thread's default space, and returns it.
#[pyfunction]
#[pyo3(signature = (atomspace=None))]
pub fn push_default_atomspace(py: Python<'_>, atomspace: Option<Py<PySpace>>) -> PyResult<Py<PySpace>> {
    let space = match atomspace {
        Some(s) => s,
        None => {
            let base = default_space(py)?;
            Py::new(py, base.get().new_child()?)?
        }
    };
    STACK.with(|st| st.borrow_mut().push(space.clone_ref(py)));
    Ok(space)
}

/// Pops this thread's default space and returns it; the one below (or the
/// process-wide one) becomes the default.
#[pyfunction]
pub fn pop_default_atomspace() -> PyResult<Py<PySpace>> {
    STACK.with(|st| st.borrow_mut().pop()).ok_or_else(|| PyRuntimeError::new_err("no default atomspace pushed in this thread to pop"))
}

fn space_or_default(py: Python<'_>, atomspace: Option<Py<PySpace>>) -> PyResult<Py<PySpace>> {
    atomspace.map_or_else(|| default_space(py), Ok)
}

/// Executes a query (GetLink, BindLink, MeetLink, QueryLink, SatisfactionLink,
/// DualLink) or another executable atom; returns an Atom, a Value or a TruthValue.
#[pyfunction]
pub fn execute_atom(py: Python<'_>, atomspace: Py<PySpace>, atom: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let bound = atomspace.bind(py);
    let me = bound.get();
    let h = me.handle_of(atom)?;
    let result = crate::interrupt::run(py, || query::execute(&me.space, h))?;
    match result {
        Executed::Atom(a) => Ok(PySpace::atom(bound, a).into_pyobject(py)?.into_any().unbind()),
        Executed::Value(v) => values::to_py(bound, v),
    }
}

/// Evaluates an atom (a SatisfactionLink, EqualLink, ...) to a TruthValue.
#[pyfunction]
pub fn evaluate_atom(py: Python<'_>, atomspace: Py<PySpace>, atom: &Bound<'_, PyAny>) -> PyResult<PyTruthValue> {
    let bound = atomspace.bind(py);
    let me = bound.get();
    let h = me.handle_of(atom)?;
    crate::interrupt::run(py, || query::evaluate(&me.space, h)).map(PyTruthValue)
}

/// Loads an Atomese (`.scm`) file into `atomspace` (default: the default
/// space), as `guile -l FILE` would: data through the core's reader, and
/// what is Scheme (definitions, module uses, calls) evaluated by Guile,
/// unless `data_only`, which refuses it. Invalid UTF-8 is read as U+FFFD
/// and each place reported on stderr; `strict` refuses such a file whole
/// instead.
#[pyfunction]
#[pyo3(signature = (path, atomspace=None, data_only=false, strict=false))]
pub fn load_file(py: Python<'_>, path: std::path::PathBuf, atomspace: Option<Py<PySpace>>, data_only: bool, strict: bool) -> PyResult<()> {
    let space = space_or_default(py, atomspace)?;
    let me = space.get();
    py.allow_threads(|| -> PyResult<()> {
        let file = std::fs::File::open(&path).map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let options = &mut sexpr::LoadOptions { strict, ..sexpr::LoadOptions::default() };
        let loaded = sexpr::refuse_invalid_utf8(&path, options).map_err(|e| e.to_string()).and_then(|()| match data_only {
            true => sexpr::load_from(&mut &me.space, std::io::BufReader::new(file), sexpr::Place::START, options, |_| {}).map(drop).map_err(|e| e.to_string()),
            false => crate::scheme::load_file(&me.space, &path, options),
        });
        options.invalid_utf8.report(&path.display().to_string());
        loaded.map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))
    })
}

/// Adds the atoms of Atomese text to `atomspace`; returns its top-level atoms.
#[pyfunction]
#[pyo3(signature = (text, atomspace=None))]
pub fn load_str(py: Python<'_>, text: &str, atomspace: Option<Py<PySpace>>) -> PyResult<Vec<PyAtom>> {
    let space = space_or_default(py, atomspace)?;
    let hs = sexpr::load_str(&mut &space.get().space, text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let bound = space.bind(py);
    Ok(hs.into_iter().map(|h| PySpace::atom(bound, h)).collect())
}

/// The space as Atomese text (every atom no link holds, with its values);
/// written to `path` when given, else returned.
#[pyfunction]
#[pyo3(signature = (atomspace=None, path=None))]
pub fn dump(py: Python<'_>, atomspace: Option<Py<PySpace>>, path: Option<std::path::PathBuf>) -> PyResult<Option<String>> {
    let space = space_or_default(py, atomspace)?;
    let me = space.get();
    py.allow_threads(|| {
        let mut buf = Vec::new();
        let io = |e: std::io::Error| PyRuntimeError::new_err(e.to_string());
        sexpr::dump_space(&me.space, Select::Roots, Form::Wire, &mut buf, |_| {}).map_err(io)?;
        match path {
            Some(p) => std::fs::write(&p, &buf).map(|()| None).map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", p.display()))),
            None => Ok(Some(String::from_utf8(buf).expect("Atomese text is UTF-8"))),
        }
    })
}

/// Grows `atomspace` with the random atoms of `atomweave bench` (the same
/// seed gives the same space as the CLI's layers) and returns them in the
/// order made. For `atomweave.atomspace_bm`, the Python layer of the bench.
#[cfg(feature = "bench")]
#[pyfunction]
pub fn _bench_space(py: Python<'_>, atomspace: Py<PySpace>, seed: u64, size: usize, link_fraction: f64) -> PyResult<Vec<PyAtom>> {
    let me = atomspace.get();
    let atoms = py.allow_threads(|| {
        let mut rs = atomweave_bench::RandomSpace::new(seed, link_fraction);
        rs.grow(&mut &me.space, size, |_| {}).map(|()| rs.atoms)
    });
    let bound = atomspace.bind(py);
    Ok(atoms.or_py()?.into_iter().map(|h| PySpace::atom(bound, h)).collect())
}

/// Iterates a space's atoms.
#[pyclass(module = "atomweave", frozen)]
pub struct AtomIter {
    space: Py<PySpace>,
    handles: Vec<Handle>,
    next: AtomicUsize,
}

#[pymethods]
impl AtomIter {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> Option<PyAtom> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.handles.get(i).map(|&h| PyAtom { space: self.space.clone_ref(py), handle: h })
    }
}
