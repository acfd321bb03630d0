//! Python in the same library (the `python` feature), both ways round:
//! - **Guile embeds Python**: `(use-modules (opencog python))` starts an
//!   interpreter in Guile's process and gives `python-eval` and
//!   `python-call-with-as`, as upstream's module does. The interpreter gets
//!   this library's own `atomweave._atomweave` module, so Python's atoms and
//!   Guile's are one AtomSpace, and `py:` procedures run from Scheme.
//! - **Python embeds Guile**: Python imports this library as
//!   `atomweave._atomweave`; its `scheme_eval` family evaluates here
//!   ([`GuileScheme`], linked into atomweave-py's `SCHEME` slice).
//!
//! Either way one copy of the core serves both languages. The library links
//! libpython; the portable wheel is atomweave-py alone, without Scheme.

use std::ffi::{c_void, CString};
use std::path::Path;
use std::sync::OnceLock;

use _atomweave::grounded::PythonProcedures;
use _atomweave::scheme::{Scheme, SCHEME};
use _atomweave::PySpace;
use atomweave::query::grounded::{self, Procedures};
use atomweave::{AtomSpace, Handle, Value};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyModule};

use crate::error::{Error, R};
use crate::ffi;
use crate::{api, smob};

/// The Scheme side of Python's `scheme_eval` family.
struct GuileScheme;

#[linkme::distributed_slice(SCHEME)]
static GUILE: &'static dyn Scheme = &GuileScheme;

/// Runs `f` in Guile mode with `space` as the current atomspace, then puts
/// the thread's current atomspace back (Python's call must not change
/// what a Scheme program around it sees). Guile starts on first use.
fn within<T>(space: &AtomSpace, f: impl FnOnce(u32) -> T) -> T {
    if !crate::initialized() {
        crate::boot(space.clone());
    }
    // A py: callback's scratch frame is held for the call alone.
    let call = smob::Call::enter(space);
    let i = call.index;
    /// Puts the thread's current atomspace back, however the call ends.
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            api::set_current(self.0);
        }
    }
    crate::with_guile(|| {
        let _restore = Restore(api::current());
        api::set_current(i);
        f(i)
    })
}

impl Scheme for GuileScheme {
    fn eval(&self, space: &AtomSpace, text: &str) -> Result<String, String> {
        within(space, |_| crate::eval(text))
    }

    fn eval_value(&self, space: &AtomSpace, text: &str) -> Result<Option<Value>, String> {
        within(space, |i| crate::eval_value(text, i))
    }

    fn eval_atom(&self, space: &AtomSpace, text: &str) -> Result<Option<(AtomSpace, Handle)>, String> {
        // The owner named inside the call: after it, a call's index names nothing.
        within(space, |_| Ok(crate::eval_atom(text)?.map(|(owner, h)| (smob::space_at(owner).clone(), h))))
    }

    fn eval_space(&self, space: &AtomSpace, text: &str) -> Result<Option<AtomSpace>, String> {
        within(space, |_| Ok(crate::eval_scm(text).map(smob::space_of)?.map(|i| smob::space_at(i).clone())))
    }

    fn load_file(&self, space: &AtomSpace, path: &Path, options: &mut atomweave::sexpr::LoadOptions) -> Result<(), String> {
        crate::load_file(space, path, atomweave::sexpr::Place::START, options, |_| {}).map(drop).map_err(|e| e.to_string())
    }

    fn install_file_loader(&self) {
        crate::install_file_loader();
    }
}

/// Starts the interpreter in this process (once), with this library's
/// module as `atomweave._atomweave` and the `atomweave` package importable;
/// makes Guile's current atomspace Python's default one, as upstream does.
fn start(space: AtomSpace) -> Result<(), String> {
    static STARTED: OnceLock<Result<(), String>> = OnceLock::new();
    STARTED
        .get_or_init(|| {
            // SAFETY: a query of the interpreter's state, callable before it starts.
            if unsafe { pyo3::ffi::Py_IsInitialized() } == 0 {
                share_libpython();
                pyo3::prepare_freethreaded_python();
            }
            Python::with_gil(|py| -> PyResult<()> {
                let modules = py.import("sys")?.getattr("modules")?;
                if !modules.contains("atomweave._atomweave")? {
                    modules.set_item("atomweave._atomweave", pyo3::wrap_pymodule!(_atomweave::_atomweave)(py))?;
                    let find_spec = py.import("importlib.util")?.getattr("find_spec")?;
                    if find_spec.call1(("atomweave",))?.is_none() {
                        let site = py.import("site")?;
                        for dir in package_dirs() {
                            site.call_method1("addsitedir", (dir,))?;
                        }
                    }
                    py.import("atomweave")?;
                    helper(py)?.call_method0("line_buffered")?;
                    _atomweave::space::set_default_atomspace(Py::new(py, PySpace::wrap(space))?);
                }
                Ok(())
            })
            .map_err(|e| Python::with_gil(|py| python_error(py, e)))
        })
        .clone()
}

/// Where the `atomweave` Python package may be when the interpreter's own
/// path lacks it: the active virtualenv's site-packages, then this
/// checkout's sources (a library built in place).
fn package_dirs() -> Vec<String> {
    let mut dirs = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        let lib = Path::new(&venv).join("lib");
        for entry in std::fs::read_dir(&lib).into_iter().flatten().flatten() {
            let site = entry.path().join("site-packages");
            if entry.file_name().to_string_lossy().starts_with("python") && site.is_dir() {
                dirs.push(site.to_string_lossy().into_owned());
            }
        }
    }
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/../atomweave-py/python");
    if Path::new(source).join("atomweave").is_dir() {
        dirs.push(source.to_string());
    }
    dirs
}

/// Makes libpython's symbols global, so that the C extension modules
/// Python loads later (which expect them there) find them: Guile loads
/// this library, and with it libpython, as a local library.
fn share_libpython() {
    // SAFETY: dladdr reads the address of a function of this process;
    // dlopen with RTLD_NOLOAD only changes the flags of a loaded library,
    // whose path dladdr gave as a NUL-terminated string.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(pyo3::ffi::Py_IsInitialized as *const c_void, &mut info) != 0 && !info.dli_fname.is_null() {
            libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_GLOBAL | libc::RTLD_NOLOAD);
        }
    }
}

/// A Python exception as text: the traceback, as Python prints it.
fn python_error(py: Python<'_>, e: PyErr) -> String {
    let traceback = e.traceback(py).and_then(|tb| tb.format().ok()).unwrap_or_default();
    format!("Python error: {traceback}{e}")
}

fn started() -> R<()> {
    start(smob::space_at(api::current()).clone()).map_err(Error::msg)
}

/// The helper module of `python-eval` (`python_eval.py`), made once.
fn helper(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static HELPER: GILOnceCell<Py<PyModule>> = GILOnceCell::new();
    HELPER
        .get_or_try_init(py, || {
            let code = CString::new(include_str!("python_eval.py")).expect("the helper holds no NUL");
            PyModule::from_code(py, &code, c"atomweave-guile/src/python_eval.py", c"_atomweave_python_eval").map(Bound::unbind)
        })
        .map(|m| m.bind(py))
}

/// Runs Python code in `__main__`, returning what it printed (captured on
/// this thread only, see `python_eval.py`).
fn python_eval(code: &str) -> R<String> {
    started()?;
    Python::with_gil(|py| -> PyResult<String> {
        let globals = py.import("__main__")?.dict();
        helper(py)?.getattr("run")?.call1((code, globals))?.extract()
    })
    .map_err(|e| Error::msg(Python::with_gil(|py| python_error(py, e))))
}

/// Calls the function `name` of `__main__` with `space` as a Python AtomSpace.
fn python_call_with_as(name: &str, space: AtomSpace) -> R<()> {
    started()?;
    Python::with_gil(|py| -> PyResult<()> {
        let globals: Bound<'_, PyDict> = py.import("__main__")?.dict();
        let Some(f) = globals.get_item(name)? else {
            return Err(pyo3::exceptions::PyNameError::new_err(format!("Python function '{name}' not found in module '__main__'")));
        };
        f.call1((Py::new(py, PySpace::wrap(space))?,))?;
        Ok(())
    })
    .map_err(|e| Error::msg(Python::with_gil(|py| python_error(py, e))))
}

subrs! {
    py_eval "python-eval" (code) {
        let code = ffi::to_string(code).ok_or_else(|| Error::wrong_type("a string of Python code", code))?;
        Ok(ffi::string(&python_eval(&code)?))
    }
    py_call_with_as "python-call-with-as" (name, space) {
        let f = ffi::to_string(name).ok_or_else(|| Error::wrong_type("a function name (a string)", name))?;
        let i = smob::space_of(space).ok_or_else(|| Error::wrong_type("an atomspace", space))?;
        python_call_with_as(&f, smob::space_at(i).clone())?;
        Ok(ffi::UNSPECIFIED)
    }
    python_init "%atomweave-python-init" () {
        define(c"python-eval", 1, py_eval as ffi::Subr);
        define(c"python-call-with-as", 2, py_call_with_as as ffi::Subr);
        started()?;
        Ok(ffi::UNSPECIFIED)
    }
}

/// Defines a primitive in the current module (`(opencog python)`, loading).
fn define(name: &std::ffi::CStr, req: i32, f: ffi::Subr) {
    // SAFETY: in Guile mode; `f` takes `req` SCM arguments.
    unsafe { ffi::scm_c_define_gsubr(name.as_ptr(), req, 0, 0, f) };
}

/// `py:` procedures called before Python started: the first call starts it,
/// as upstream's core loads its Python evaluator on demand.
struct PythonOnDemand;

impl Procedures for PythonOnDemand {
    fn call(&self, space: &AtomSpace, name: &str, args: &[Handle]) -> atomweave::Result<Value> {
        start(space.clone()).map_err(atomweave::Error::Procedure)?;
        PythonProcedures.call(space, name, args)
    }
}

/// Makes `py:` procedures callable from Scheme, and defines
/// `%atomweave-python-init` in `(opencog)` (unexported): what
/// `(opencog python)` calls to define its procedures.
pub(crate) fn register() {
    grounded::register("py", std::sync::Arc::new(PythonOnDemand));
    // SAFETY: in Guile mode, the module `(opencog)` current; it takes no arguments.
    unsafe { ffi::scm_c_define_gsubr(c"%atomweave-python-init".as_ptr(), 0, 0, 0, python_init as ffi::Subr) };
}
