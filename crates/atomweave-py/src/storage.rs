//! The StorageNode calls, by upstream's names: `cog_open(RocksStorageNode(
//! "rocks:///path"))`, `store_atom(a)`, `fetch_atom(a)`, `load_atomspace()`,
//! `barrier()`, `cog_close(sn)`. A call without `storage=` uses the store
//! opened last and still open, as upstream's do.

use atomweave::{AtomSpace, Handle};
use atomweave_store::registry::Registry;
use atomweave_store::{StorageNode, StoreError};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::atom::PyAtom;
use crate::space::{default_space, type_arg, PySpace};
use crate::values::{self};

/// Open stores, by the space and StorageNode atom that opened them, the
/// current one last. Its lock is held only to find, add or remove a
/// store: a call locks its store alone, so a slow fetch holds up no other
/// store.
static OPEN: Registry<(AtomSpace, Handle)> = Registry::new();

/// Whether an entry is the one the StorageNode atom `node` of `space` opened.
fn opened_by(space: &AtomSpace, node: Handle) -> impl Fn(&(AtomSpace, Handle)) -> bool + '_ {
    move |(s, n)| *n == node && s.same_hierarchy(space)
}

pub(crate) fn store_err(e: StoreError) -> PyErr {
    match e {
        StoreError::Space(e) => crate::to_py(e),
        StoreError::Io { .. } => PyOSError::new_err(e.to_string()),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// Runs `f` on the store `storage` names (or the current one), without the GIL.
fn with_store<T: Send>(
    py: Python<'_>,
    storage: Option<&Bound<'_, PyAtom>>,
    f: impl FnOnce(&mut dyn StorageNode) -> atomweave_store::Result<T> + Send,
) -> PyResult<T> {
    let key = storage.map(|s| (s.get().space.get().space.clone(), s.get().handle));
    py.allow_threads(|| {
        let store = OPEN.named_or_current(key.as_ref().map(|(space, node)| opened_by(space, *node)), "cog_open").map_err(PyRuntimeError::new_err)?;
        store.call(f).map_err(store_err)
    })
}

fn atom_parts(atom: &Bound<'_, PyAny>) -> PyResult<(AtomSpace, Handle)> {
    let a = atom.downcast::<PyAtom>().map_err(|_| PyTypeError::new_err("expected an Atom"))?.get();
    Ok((a.space.get().space.clone(), a.handle))
}

/// Opens the store a StorageNode atom names (RocksStorageNode, LmdbStorageNode,
/// FileStorageNode, ...) and makes it the current one.
#[pyfunction]
pub fn cog_open(py: Python<'_>, storage: &Bound<'_, PyAtom>) -> PyResult<()> {
    let a = storage.get();
    let space = a.space.get().space.clone();
    space.get_type(a.handle).ok_or_else(|| PyRuntimeError::new_err("the StorageNode is gone"))?;
    let store = py.allow_threads(|| atomweave_store::proxy::open_node(&space, a.handle)).map_err(store_err)?;
    OPEN.add((space, a.handle), store);
    Ok(())
}

/// Flushes and closes the store (the current one by default).
#[pyfunction]
#[pyo3(signature = (storage=None))]
pub fn cog_close(py: Python<'_>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<()> {
    let key = storage.map(|s| (s.get().space.get().space.clone(), s.get().handle));
    py.allow_threads(|| {
        let opened = match &key {
            Some((space, node)) => OPEN.remove(opened_by(space, *node)),
            None => OPEN.remove_current(),
        };
        // Waits for a call still using it.
        opened.ok_or_else(|| PyRuntimeError::new_err("no such StorageNode is open"))?.close().map_err(store_err)
    })
}

/// Stores the atom, with its values.
#[pyfunction]
#[pyo3(signature = (atom, storage=None))]
pub fn store_atom(py: Python<'_>, atom: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<()> {
    let (space, h) = atom_parts(atom)?;
    with_store(py, storage, |s| s.store_atom(&space, h))
}

/// Stores the atom's value under `key`.
#[pyfunction]
#[pyo3(signature = (atom, key, storage=None))]
pub fn store_value(py: Python<'_>, atom: &Bound<'_, PyAny>, key: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<()> {
    let (space, h) = atom_parts(atom)?;
    let (_, k) = atom_parts(key)?;
    with_store(py, storage, |s| s.store_value(&space, h, k))
}

/// Adds `delta` to the atom's value under `key` (a count truth value's count
/// under the truth-value key), in the space and, atomically, in the store.
#[pyfunction]
#[pyo3(signature = (atom, key, delta, storage=None))]
pub fn update_value(
    py: Python<'_>,
    atom: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
    delta: Vec<f64>,
    storage: Option<&Bound<'_, PyAtom>>,
) -> PyResult<PyObject> {
    let (space, h) = atom_parts(atom)?;
    let (_, k) = atom_parts(key)?;
    let v = with_store(py, storage, |s| s.update_value(&space, h, k, &delta))?;
    let owner = atom.downcast::<PyAtom>()?.get().space.bind(py).clone();
    values::to_py(&owner, v)
}

/// Loads the atom's stored values into its space; returns the atom.
#[pyfunction]
#[pyo3(signature = (atom, storage=None))]
pub fn fetch_atom<'py>(py: Python<'py>, atom: &Bound<'py, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<Bound<'py, PyAny>> {
    let (space, h) = atom_parts(atom)?;
    with_store(py, storage, |s| s.fetch_atom(&space, h))?;
    Ok(atom.clone())
}

/// Loads the atom's stored value under `key`; returns the atom.
#[pyfunction]
#[pyo3(signature = (atom, key, storage=None))]
pub fn fetch_value<'py>(py: Python<'py>, atom: &Bound<'py, PyAny>, key: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<Bound<'py, PyAny>> {
    let (space, h) = atom_parts(atom)?;
    let (_, k) = atom_parts(key)?;
    with_store(py, storage, |s| s.fetch_value(&space, h, k))?;
    Ok(atom.clone())
}

/// Loads the stored links holding the atom (recursively, links holding
/// those too); returns how many.
#[pyfunction]
#[pyo3(signature = (atom, recursive=false, storage=None))]
pub fn fetch_incoming_set(py: Python<'_>, atom: &Bound<'_, PyAny>, recursive: bool, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<usize> {
    let (space, h) = atom_parts(atom)?;
    with_store(py, storage, |s| s.fetch_incoming_set(&space, h, recursive))
}

/// Loads the stored links of type `t` holding the atom; returns how many.
#[pyfunction]
#[pyo3(signature = (atom, t, storage=None))]
pub fn fetch_incoming_by_type(py: Python<'_>, atom: &Bound<'_, PyAny>, t: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<usize> {
    let (space, h) = atom_parts(atom)?;
    let t = type_arg(t)?;
    with_store(py, storage, |s| s.fetch_incoming_by_type(&space, h, t))
}

fn space_of(py: Python<'_>, atomspace: Option<Py<PySpace>>) -> PyResult<AtomSpace> {
    Ok(match atomspace {
        Some(s) => s.get().space.clone(),
        None => default_space(py)?.get().space.clone(),
    })
}

/// Loads every stored atom of type `t` into `atomspace` (default: the default space).
#[pyfunction]
#[pyo3(signature = (t, atomspace=None, storage=None))]
pub fn load_atoms_of_type(py: Python<'_>, t: &Bound<'_, PyAny>, atomspace: Option<Py<PySpace>>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<usize> {
    let t = type_arg(t)?;
    let space = space_of(py, atomspace)?;
    with_store(py, storage, |s| s.load_atoms_of_type(&space, t))
}

/// Loads every stored atom and value into `atomspace` (default: the default space).
#[pyfunction]
#[pyo3(signature = (atomspace=None, storage=None))]
pub fn load_atomspace(py: Python<'_>, atomspace: Option<Py<PySpace>>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<u64> {
    let space = space_of(py, atomspace)?;
    with_store(py, storage, |s| s.load_atomspace(&space, &mut |_| {}))
}

/// Stores every atom and value of `atomspace` (default: the default space).
#[pyfunction]
#[pyo3(signature = (atomspace=None, storage=None))]
pub fn store_atomspace(py: Python<'_>, atomspace: Option<Py<PySpace>>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<u64> {
    let space = space_of(py, atomspace)?;
    with_store(py, storage, |s| s.store_atomspace(&space, &mut |_| {}))
}

/// Makes everything stored so far durable.
#[pyfunction]
#[pyo3(signature = (storage=None))]
pub fn barrier(py: Python<'_>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<()> {
    with_store(py, storage, |s| s.barrier())
}

/// Deletes the atom from the store and its space; False if links hold it.
#[pyfunction]
#[pyo3(signature = (atom, storage=None))]
pub fn cog_delete(py: Python<'_>, atom: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<bool> {
    let (space, h) = atom_parts(atom)?;
    with_store(py, storage, |s| s.delete(&space, h, false))
}

/// Deletes the atom and every link holding it, from the store and its space.
#[pyfunction]
#[pyo3(signature = (atom, storage=None))]
pub fn cog_delete_recursive(py: Python<'_>, atom: &Bound<'_, PyAny>, storage: Option<&Bound<'_, PyAtom>>) -> PyResult<bool> {
    let (space, h) = atom_parts(atom)?;
    with_store(py, storage, |s| s.delete(&space, h, true))
}
