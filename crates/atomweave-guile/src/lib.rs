//! atomweave's Guile 3 extension: the core behind `(use-modules (opencog))`.
//!
//! Two ways in, one copy of the core:
//! - **Guile loads it.** `scheme/opencog.scm` calls `(load-extension
//!   "libatomweave_guile" "atomweave_guile_init")`, which defines the
//!   primitives in the module being loaded.
//! - **A Rust program embeds Guile** ([`boot`]: `atomweave bench -g`, the
//!   server's `scm` shell). It registers the same init function under that
//!   name in-process, then evaluates the modules' sources, compiled into the
//!   binary, so no second copy of the core is loaded.
//!
//! What it is not: a Scheme interpreter (that is Guile) or a second API: every
//! primitive is a thin conversion over the core's `AtomSpace`. Scheme errors
//! never unwind through Rust frames and Rust errors become Scheme exceptions
//! (see `error.rs`); Scheme objects hold handles and space indexes, never
//! pointers (see `smob.rs`).

use std::ffi::{c_void, CString};
use std::sync::Once;

use atomweave::AtomSpace;

/// Declares primitives: `rust_name "scheme-name" (args) { body }`, each a
/// C function that runs its body under [`error::guard`].
macro_rules! subrs {
    ($($f:ident $name:literal ($($a:ident),*) $body:block)*) => {
        $(unsafe extern "C" fn $f($($a: ffi::Scm),*) -> ffi::Scm { crate::error::guard($name, || $body) })*
    };
}

mod api;
mod error;
pub mod ffi;
mod grounded;
mod interrupt;
mod load;
mod persist;
mod plain_eval;
mod plain_read;
#[cfg(feature = "python")]
mod python;
mod smob;

pub use ffi::Scm;
pub use interrupt::{eval_within, interrupt, EvalGroup};
pub use load::{exit_on_quit, install_file_loader, load_file};
pub use persist::give_store;

/// A module [`boot`] loads: its source, and its bytecode, compiled by the
/// build's Guile (`build.rs`).
struct Module {
    source: &'static str,
    compiled: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/modules.rs"));

/// Loads one of [`MODULES`]: runs its bytecode; or, when this process's
/// Guile cannot run what the build's Guile made (another version of it),
/// compiles the source, as slowly as Guile does (seconds), saying why once.
const LOAD_MODULE: &std::ffi::CStr = c"(define %atomweave-compiling? #f)
(define (%atomweave-load-module code source)
  (let ((thunk (catch #t
                 (lambda () (load-thunk-from-memory code))
                 (lambda (key . args)
                   (unless %atomweave-compiling?
                     (set! %atomweave-compiling? #t)
                     (format (current-error-port)
                             \"atomweave: this Guile cannot run the Scheme modules compiled when atomweave was built (~a); compiling them now, which takes seconds at every start: rebuild atomweave against this Guile~%\"
                             (call-with-output-string (lambda (port) (print-exception port #f key args)))))
                   #f))))
    (if thunk
        (save-module-excursion thunk)
        (eval-string source #:compile? #t))))";

/// Modules loaded when a program uses one: the type families' (each
/// registers its family's types) and the logger's. Their names and sources.
pub const ON_DEMAND_MODULES: &[(&str, &str)] = &[
    ("(opencog logger)", include_str!("../scheme/opencog/logger.scm")),
    ("(opencog nlp)", include_str!("../scheme/opencog/nlp.scm")),
    ("(opencog bioscience)", include_str!("../scheme/opencog/bioscience.scm")),
    ("(opencog pln)", include_str!("../scheme/opencog/pln.scm")),
    ("(opencog spacetime)", include_str!("../scheme/opencog/spacetime.scm")),
    ("(opencog attention)", include_str!("../scheme/opencog/attention.scm")),
    ("(atomweave legacy)", include_str!("../scheme/atomweave/legacy.scm")),
    // Upstream's modules whose calls are in (opencog).
    ("(opencog randgen)", include_str!("../scheme/opencog/randgen.scm")),
    ("(opencog uuid)", include_str!("../scheme/opencog/uuid.scm")),
    ("(opencog extension)", include_str!("../scheme/opencog/extension.scm")),
    // Old names of modules, which say so once.
    ("(opencog query)", include_str!("../scheme/opencog/query.scm")),
    ("(opencog persist-pgsql)", include_str!("../scheme/opencog/persist-pgsql.scm")),
    ("(opencog attention-bank)", include_str!("../scheme/opencog/attention-bank.scm")),
    // Python in Guile, when the library has it (it says so when not).
    ("(opencog python)", include_str!("../scheme/opencog/python.scm")),
    // Upstream modules atomweave does not provide: each says so when used.
    ("(opencog matrix)", include_str!("../scheme/opencog/matrix.scm")),
    ("(opencog csv-table)", include_str!("../scheme/opencog/csv-table.scm")),
    ("(opencog type-utils)", include_str!("../scheme/opencog/type-utils.scm")),
];

/// Makes Guile's module loader take `ON_DEMAND_MODULES` from memory when a
/// program uses one, where it would search the load path for a file.
const LAZY_MODULES: &std::ffi::CStr = c"(let ((search try-module-autoload))
  (set! try-module-autoload
    (lambda (name . rest)
      (let ((source (assoc name %atomweave-on-demand-modules)))
        (if source
            (begin (save-module-excursion (lambda () (eval-string (cdr source)))) #t)
            (apply search name rest))))))";

static INIT: Once = Once::new();

/// The space Scheme starts in, when the host chose one before loading.
static HOST_SPACE: parking_lot::Mutex<Option<AtomSpace>> = parking_lot::Mutex::new(None);

/// The extension's entry point: `(load-extension "libatomweave_guile"
/// "atomweave_guile_init")` from the module `(opencog)`.
///
/// # Safety
/// Called by Guile, in Guile mode, with the module to fill current.
#[no_mangle]
pub unsafe extern "C" fn atomweave_guile_init() {
    INIT.call_once(|| {
        smob::init();
        let space = HOST_SPACE.lock().take().unwrap_or_default();
        api::init(register_space(space));
        install_file_loader();
        grounded::register();
    });
    api::define_all();
    #[cfg(feature = "python")]
    python::register();
}

unsafe extern "C" fn registered_init(_: *mut c_void) {
    // SAFETY: Guile calls this in Guile mode, as `load-extension` would.
    unsafe { atomweave_guile_init() };
}

/// Starts Guile in this process (once; later calls do nothing) and loads
/// `(opencog)`, `(opencog exec)`, `(opencog persist)` and the shell helpers
/// into `(guile-user)`, with `space` as the first current atomspace. Any
/// thread may then evaluate, inside [`with_guile`].
///
/// Guile starts on a thread of its own that never ends: the collector takes
/// the thread that started it for the process's main thread and signals it
/// at every collection, so had a caller's thread (a Python thread, a server
/// connection's) started it and ended, the next collection would abort.
pub fn boot(space: AtomSpace) {
    static BOOT: Once = Once::new();
    BOOT.call_once(|| {
        *HOST_SPACE.lock() = Some(space);
        let (started, wait) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("guile".into())
            .spawn(move || {
                start();
                let _ = started.send(());
                loop {
                    std::thread::park();
                }
            })
            .expect("a thread for Guile");
        wait.recv().expect("Guile started (the thread starting it panicked)");
    });
}

/// Boots Guile on this thread: [`boot`]'s work.
fn start() {
    with_guile(|| {
        // SAFETY: in Guile mode; the strings are NUL-terminated; the module
        // sources are ours and evaluate without error (tested).
        unsafe {
            ffi::scm_c_register_extension(c"libatomweave_guile".as_ptr(), c"atomweave_guile_init".as_ptr(), registered_init, std::ptr::null_mut());
            ffi::scm_c_eval_string(c"(use-modules (ice-9 eval-string) (ice-9 format) (system vm loader))".as_ptr());
            // A file a loaded file loads is evaluated, not compiled into
            // the user's cache with notes on stderr.
            ffi::scm_c_eval_string(c"(set! %load-should-auto-compile #f)".as_ptr());
            ffi::scm_c_eval_string(LOAD_MODULE.as_ptr());
            let load = ffi::scm_c_eval_string(c"%atomweave-load-module".as_ptr());
            for m in MODULES {
                ffi::scm_call_2(load, ffi::static_bytevector(m.compiled), ffi::string(m.source));
            }
            ffi::scm_c_eval_string(c"(use-modules (opencog) (opencog exec) (opencog persist) (atomweave shell))".as_ptr());
            let modules = ON_DEMAND_MODULES
                .iter()
                .map(|(name, src)| ffi::scm_cons(ffi::scm_c_read_string(CString::new(*name).expect("no NUL").as_ptr()), ffi::string(src)));
            define("%atomweave-on-demand-modules", ffi::list(modules.collect::<Vec<_>>().into_iter()));
            ffi::scm_c_eval_string(LAZY_MODULES.as_ptr());
        }
    });
}

/// Caps the heap of Scheme's objects in this process at `bytes`: an
/// allocation past it fails with Guile's out-of-memory error (which a
/// shell reports) instead of taking the machine's memory. The atoms
/// themselves live outside that heap. Process-wide: the lowest cap asked
/// for holds (two servers in one process keep the tighter one).
pub fn limit_heap(bytes: usize) {
    static CAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);
    let cap = CAP.fetch_min(bytes, std::sync::atomic::Ordering::AcqRel).min(bytes);
    // SAFETY: a plain setter of the collector's, callable in any mode.
    unsafe { ffi::GC_set_max_heap_size(cap) };
}

/// Runs `f` on this thread in Guile mode, entering it if the thread is not
/// in it (tens of microseconds: Guile's continuation barrier and GC
/// bookkeeping), so call it around a batch of work, not per call. Needs
/// [`boot`] first.
pub fn with_guile<F: FnOnce() -> T, T>(f: F) -> T {
    type Outcome<T> = Option<std::thread::Result<T>>;
    struct Call<F, T>(Option<F>, Outcome<T>);
    unsafe extern "C" fn tramp<F: FnOnce() -> T, T>(data: *mut c_void) -> *mut c_void {
        // SAFETY: `data` is the `Call` below, alive for the call.
        let call = unsafe { &mut *(data as *mut Call<F, T>) };
        if let Some(f) = call.0.take() {
            // A panic must not unwind into Guile's C frames: it is carried out.
            call.1 = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        }
        std::ptr::null_mut()
    }
    let mut call: Call<F, T> = Call(Some(f), None);
    // SAFETY: the trampoline gets the pointer to `call` and runs `f`, which
    // calls Scheme only through `(atomweave shell)` or under `plain_eval.rs`'s
    // catch, both catching every exception, so nothing unwinds through this frame.
    unsafe { ffi::scm_with_guile(tramp::<F, T>, (&mut call as *mut Call<F, T>).cast()) };
    match call.1 {
        Some(Ok(v)) => v,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => panic!("Guile did not run the call (an exception reached scm_with_guile)"),
    }
}

/// Evaluates Scheme code in `(guile-user)`, catching every exception: what
/// the expressions printed, then the last one's values (unless unspecified)
/// as the REPL shows them; or the error (`In procedure cog-new-link: ...`).
/// Must run in Guile mode (after [`boot`], on its thread or in [`with_guile`]).
pub fn eval(code: &str) -> Result<String, String> {
    call_shell(Shell::Eval, &[input(code)]).map(|text| ffi::to_string(text).unwrap_or_default())
}

/// Evaluates Scheme code in `(guile-user)`; the atom its (last) value is,
/// as the registered space it belongs to and its handle; `None` if the
/// value is not an atom. Must run in Guile mode.
pub fn eval_atom(code: &str) -> Result<Option<(u32, atomweave::Handle)>, String> {
    let x = evaluate(code, Shell::Value)?;
    Ok(smob::Atom::from_scm(x).map(|a| (a.space, a.h)))
}

/// Evaluates Scheme code in `(guile-user)`; its (last) value. Must run in
/// Guile mode.
#[cfg(feature = "python")]
pub(crate) fn eval_scm(code: &str) -> Result<Scm, String> {
    evaluate(code, Shell::Value)
}

/// Evaluates Scheme code in `(guile-user)`; the value it gives (an atom, a
/// truth value or another value) with its atoms in registered space
/// `space`, or `None` if it is no value. Must run in Guile mode.
pub fn eval_value(code: &str, space: u32) -> Result<Option<atomweave::Value>, String> {
    let x = evaluate(code, Shell::Value)?;
    if smob::value_parts(x).is_none() && smob::tv_of(x).is_none() && smob::Atom::from_scm(x).is_none() {
        return Ok(None);
    }
    smob::from_scm(x, &mut |a| api::handle_in(space, a)).map(Some).map_err(|e| e.msg)
}

/// Evaluates Scheme code in `(guile-user)` with the interpreter, discarding
/// its values and output capture (the cost upstream's `scm_c_eval_string` had).
pub fn run(code: &str) -> Result<(), String> {
    evaluate(code, Shell::Run).map(drop)
}

/// Plain calls compiled and run here (`plain_eval.rs`), anything else
/// through `shell`.
fn evaluate(code: &str, shell: Shell) -> Result<Scm, String> {
    plain_eval::eval(code).unwrap_or_else(|| call_shell(shell, &[input(code)]))
}

/// How many texts [`run`] and [`eval_atom`] have evaluated on this thread
/// without the shell's reader and walk (plain calls, see `plain_eval.rs`), for
/// tests and diagnostics.
pub fn plain_eval_runs() -> u64 {
    plain_eval::runs()
}

/// Compiles (or, without `compile`, memoizes: evaluates into a closure)
/// the expression `lambda`, which must make a procedure, kept from the
/// collector until the process ends; call it with [`call`].
pub fn make_procedure(lambda: &str, compile: bool) -> Result<Scm, String> {
    let x = call_shell(if compile { Shell::Compile } else { Shell::Memoize }, &[ffi::string(lambda)])?;
    // SAFETY: a procedure, protected for good.
    Ok(unsafe { ffi::scm_gc_protect_object(x) })
}

/// Applies the procedure Scheme expression `name` gives to `args`; its
/// value, or the error's text. Must run in Guile mode.
pub(crate) fn apply(name: &str, args: Scm) -> Result<Scm, String> {
    call_shell(Shell::Apply, &[ffi::string(name), args])
}

/// Calls a procedure of one argument (from [`make_procedure`]); its error,
/// if it raised one.
pub fn call(procedure: Scm, arg: i64) -> Result<(), String> {
    call_shell(Shell::Call, &[procedure, ffi::from_i64(arg)]).map(drop)
}

/// The procedures of `(atomweave shell)`, looked up once.
#[derive(Copy, Clone)]
enum Shell {
    Eval,
    Run,
    Value,
    Memoize,
    Compile,
    Call,
    Apply,
    Resolve,
    ErrorText,
    Interrupt,
    OpenFile,
    LoadForm,
    OwnRest,
    Write,
    /// Not a procedure: the fluid that says a command's body is running.
    InBody,
    /// Not a procedure: what an escape stopped at an entry gives, `(#f . message)`.
    Escaped,
}

static SHELL: [std::sync::atomic::AtomicUsize; 16] = [const { std::sync::atomic::AtomicUsize::new(0) }; 16];

fn shell(p: Shell) -> Scm {
    let slot = &SHELL[p as usize];
    match slot.load(std::sync::atomic::Ordering::Acquire) {
        0 => {
            let name = match p {
                Shell::Eval => c"shell-eval",
                Shell::Run => c"shell-run",
                Shell::Value => c"shell-value",
                Shell::Memoize => c"shell-memoize",
                Shell::Compile => c"shell-compile",
                Shell::Call => c"shell-call",
                Shell::Apply => c"shell-apply",
                Shell::Resolve => c"shell-resolve",
                Shell::ErrorText => c"shell-error-text",
                Shell::Interrupt => c"shell-interrupt",
                Shell::OpenFile => c"shell-open-file",
                Shell::LoadForm => c"shell-load-form",
                Shell::OwnRest => c"shell-own-rest",
                Shell::Write => c"shell-write",
                Shell::InBody => c"shell-in-body",
                Shell::Escaped => c"shell-escaped",
            };
            // SAFETY: the module is loaded by `boot` and exports the name; a
            // module's top-level procedure stays reachable, so its word stays valid.
            let f = unsafe { ffi::scm_c_public_ref(c"atomweave shell".as_ptr(), name.as_ptr()) };
            slot.store(f.bits(), std::sync::atomic::Ordering::Release);
            f
        }
        // SAFETY: stored above from a module's procedure, which stays reachable.
        bits => unsafe { Scm::from_bits(bits) },
    }
}

/// What the shell evaluates: the text already read (straight from Rust's
/// string, when it is plain), or the text for Guile to read.
fn input(code: &str) -> Scm {
    plain_read::read_all(code).unwrap_or_else(|| ffi::string(code))
}

/// The message of an escape stopped at an entry from Rust (the shell's).
pub(crate) fn escaped_message() -> Scm {
    // SAFETY: the shell's pair.
    unsafe { shell(Shell::Escaped).cdr() }
}

/// Calls a procedure of `(atomweave shell)` (each returns `(ok? . x)`):
/// `x`, or the error's text.
fn call_shell(p: Shell, args: &[Scm]) -> Result<Scm, String> {
    api::define_new_types();
    // Resolved for `outside_body` before any body runs.
    shell(Shell::InBody);
    // SAFETY: the shell's procedures catch every exception and fence off
    // every other non-local exit (`guarded`), so nothing unwinds through
    // this frame; each takes these arguments.
    let r = unsafe {
        match *args {
            [a] => ffi::scm_call_1(shell(p), a),
            [a, b] => ffi::scm_call_2(shell(p), a, b),
            _ => unreachable!("the shell's procedures take one or two arguments"),
        }
    };
    // The barrier in `guarded` gives #f if the handler itself failed.
    if !r.is_pair() {
        return Err("the shell's error handler failed".into());
    }
    // SAFETY: a pair.
    let (ok, x) = unsafe { (!r.car().is_false(), r.cdr()) };
    if ok {
        Ok(x)
    } else {
        Err(ffi::to_string(x).unwrap_or_default())
    }
}

/// Runs `f` with the shell's `in-body` off, then puts it back: every
/// primitive's body (`error::guard`). An embedder's watchdog throws only in
/// a command's body, and whatever Scheme a primitive runs on the way in to
/// a nested one (a `scm:` callback's) and out of it, before and after its
/// handler stands, must not throw over the Rust frames between. In Guile
/// mode; `f` must return normally.
pub(crate) fn outside_body<T>(f: impl FnOnce() -> T) -> T {
    // Nothing to do until the shell has run a body (it resolves the fluid).
    let bits = SHELL[Shell::InBody as usize].load(std::sync::atomic::Ordering::Acquire);
    if bits == 0 {
        return f();
    }
    // SAFETY: stored by `shell` from the module's fluid, which stays reachable.
    let fluid = unsafe { Scm::from_bits(bits) };
    // SAFETY: the shell's fluid; neither call throws.
    let was = unsafe { ffi::scm_fluid_ref(fluid) };
    if was.is_false() {
        return f();
    }
    // SAFETY: as above.
    unsafe { ffi::scm_fluid_set_x(fluid, ffi::BOOL_F) };
    let out = f();
    // SAFETY: as above.
    unsafe { ffi::scm_fluid_set_x(fluid, was) };
    out
}

/// Defines `name` in the current module (`(guile-user)` after [`boot`]) as
/// a vector of `items`. Must run in Guile mode.
pub fn define_vector(name: &str, items: impl ExactSizeIterator<Item = Scm>) {
    // SAFETY: the vector lives on this stack frame while it fills (the
    // collector scans it), and every index is in range.
    let v = unsafe {
        let v = ffi::scm_c_make_vector(items.len(), ffi::BOOL_F);
        for (i, x) in items.enumerate() {
            ffi::scm_c_vector_set_x(v, i, x);
        }
        v
    };
    define(name, v);
}

/// Defines `name` in the current module as `value`. Must run in Guile mode.
pub fn define(name: &str, value: Scm) {
    let name = CString::new(name).expect("no NUL");
    // SAFETY: defining a variable does not throw.
    unsafe { ffi::scm_c_define(name.as_ptr(), value) };
}

/// An atom of the current atomspace, as a Scheme object.
pub fn atom_object(h: atomweave::Handle) -> Scm {
    smob::Atom { space: api::current(), h }.to_scm()
}

/// A truth value as a Scheme object.
pub fn tv_object(tv: atomweave::TruthValue) -> Scm {
    smob::tv_obj(tv)
}

/// Makes `space` known to Scheme (once: a space registered before keeps its
/// index); the index names it to [`select_space`].
pub fn register_space(space: AtomSpace) -> u32 {
    smob::register(space)
}

/// Whether the extension is initialized in this process: by [`boot`], or
/// by a Guile that loaded it (`(use-modules (opencog))`).
pub(crate) fn initialized() -> bool {
    INIT.is_completed()
}

/// Makes the registered space `index` the current atomspace of this
/// thread (as `cog-set-atomspace!`). Must run in Guile mode.
pub fn select_space(index: u32) {
    api::set_current(index);
}
