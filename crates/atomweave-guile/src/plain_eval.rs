//! Plain calls run straight from text, for the entries Rust makes into
//! Scheme (`atomweave bench -g`, [`run`](crate::run), [`eval_atom`](crate::eval_atom)).
//!
//! Most such text is a call of bound procedures on literals and on other
//! such calls: `(cog-new-link 'InheritanceLink (cog-atom 12) (cog-atom 40))`.
//! Reading it into lists and walking them in Scheme (`plain?`, then
//! `plain-eval` in `(atomweave shell)`) cost about 3 us, most of it
//! allocation and the walk itself. Here the text compiles to a postfix
//! program of Rust values, with each symbol resolved through a per-thread
//! cache of the user module's variables, and the program runs under one
//! C-level catch.
//!
//! What takes this path is what `plain-eval` would evaluate, and it
//! evaluates the same way (head first, then arguments left to right; the
//! first of several values): numbers, strings and booleans; quoted symbols;
//! bound variables that are not macros; calls whose head is a bound
//! procedure; all with `(guile-user)` current. Anything else returns `None`
//! before anything runs, and the caller uses the shell. If a form changes
//! the user module's bindings, the forms after it go to the shell, which
//! looks their symbols up afresh.
//!
//! Non-local exits: a Scheme error inside the program longjmps back to
//! `scm_c_catch`, across [`body`] and [`exec`] only, which hold no value
//! with a destructor (plain old frames, as every primitive's frame is when
//! it throws; see `error.rs`). Any other exit (abort-to-prompt to a prompt
//! of the caller's, an escape continuation) would jump over the Rust frames
//! that called in: a fence between that catch and an outer one turns it
//! into an error there, as the shell's `guarded` does.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use foldhash::fast::RandomState;
use hashbrown::HashMap;

use crate::ffi::{self, Scm};
use crate::plain_read::{tokens, Token};

/// Deepest value stack a program may need; deeper text takes the shell.
const STACK: usize = 64;
/// Names a thread's cache holds before it starts over, so text full of
/// fresh names (Python's `scheme_eval_h`, say) cannot grow it for good.
const CACHE_LIMIT: usize = 4096;

enum Op {
    /// An immediate (a fixnum, a boolean).
    Push(Scm),
    Int(i64),
    Float(f64),
    Str(String),
    /// A quoted symbol, interned when it runs.
    Sym(Box<str>),
    /// The value of a variable of the user module, read when the op runs.
    Var(Scm),
    /// Calls the procedure below the top `argc` values on them.
    Call(usize),
    /// Ends a top-level form, its value the result so far; the byte offset
    /// where the next form starts, or [`LAST`].
    End(usize),
}

const LAST: usize = usize::MAX;

struct Program {
    ops: Vec<Op>,
    /// The user module's generation the symbols were resolved in.
    generation: u64,
}

/// Bumped whenever the user module gains a binding or a use (the shell's
/// `module-observe`): every thread's cache is stale then.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// `(guile-user)`, resolved once (modules are never collected).
static USER: AtomicUsize = AtomicUsize::new(0);

fn user_module() -> Scm {
    match USER.load(Ordering::Acquire) {
        0 => {
            // SAFETY: in Guile mode after `boot`, which made the module.
            let m = unsafe { ffi::scm_c_resolve_module(c"guile-user".as_ptr()) };
            USER.store(m.bits(), Ordering::Release);
            m
        }
        // SAFETY: stored above; modules are never collected.
        bits => unsafe { Scm::from_bits(bits) },
    }
}

/// The user module's variables by name (`None`: unbound), as the shell's
/// `module-variable` found them. A cached variable stays protected from
/// the collector for good: protecting one again only counts up, so that is
/// bounded by the module's own bindings, and no running program can lose one.
struct Cache {
    generation: u64,
    vars: HashMap<Box<str>, Option<Scm>, RandomState>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache { generation: 0, vars: HashMap::default() });
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

impl Cache {
    /// Starts over if the user module changed or the cache is full; the
    /// generation the lookups that follow belong to.
    fn fresh(&mut self) -> u64 {
        let g = GENERATION.load(Ordering::Acquire);
        if g != self.generation || self.vars.len() > CACHE_LIMIT {
            self.vars.clear();
            self.generation = g;
        }
        g
    }

    /// The variable `name` names in the user module, if bound.
    fn variable(&mut self, name: &str) -> Option<Scm> {
        let var = match self.vars.get(name) {
            Some(&v) => v,
            None => {
                let v = match crate::call_shell(crate::Shell::Resolve, &[ffi::symbol(name)]) {
                    // SAFETY: a variable; see the type's doc.
                    Ok(x) if !x.is_false() => Some(unsafe { ffi::scm_gc_protect_object(x) }),
                    _ => None,
                };
                self.vars.insert(name.into(), v);
                v
            }
        }?;
        // SAFETY: a variable. Checked every time, as what a variable holds
        // can change without a new binding (`set!`, `define-syntax`).
        (!unsafe { ffi::scm_variable_bound_p(var) }.is_false()).then_some(var)
    }

    /// What a bound variable holds.
    fn held(var: Scm) -> Scm {
        // SAFETY: bound (`variable` checks), so this does not throw.
        unsafe { ffi::scm_variable_ref(var) }
    }

    /// The variable of `name` if it holds other than a macro.
    fn value(&mut self, name: &str) -> Option<Scm> {
        let var = self.variable(name)?;
        // SAFETY: does not throw.
        unsafe { ffi::scm_macro_p(Self::held(var)) }.is_false().then_some(var)
    }

    /// The variable of `name` if it holds a procedure.
    fn procedure(&mut self, name: &str) -> Option<Scm> {
        let var = self.variable(name)?;
        // SAFETY: does not throw.
        (!unsafe { ffi::scm_procedure_p(Self::held(var)) }.is_false()).then_some(var)
    }

    /// Does `name` hold a macro (as `quote` must, for `'x` to mean it)?
    fn is_macro(&mut self, name: &str) -> bool {
        // SAFETY: does not throw.
        self.variable(name).is_some_and(|var| !unsafe { ffi::scm_macro_p(Self::held(var)) }.is_false())
    }
}

/// Compiles `text`, or `None` if it is not plain (see the module doc).
fn compile(text: &str) -> Option<Program> {
    // SAFETY: reading the current module does not throw.
    if unsafe { ffi::scm_current_module() } != user_module() {
        return None;
    }
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let generation = cache.fresh();
        let mut ops = Vec::with_capacity(16);
        // Arguments so far of each open call.
        let mut open: Vec<usize> = Vec::with_capacity(8);
        let (mut depth, mut max_depth) = (0usize, 0usize);
        // Waiting for a quoted datum; for a call's head.
        let (mut quoted, mut head) = (false, false);
        let mut toks = tokens(text);
        while let Some(token) = toks.next() {
            let token = token?;
            match token {
                Token::Symbol(s) if head => {
                    ops.push(Op::Var(cache.procedure(s)?));
                    head = false;
                    depth += 1;
                    max_depth = max_depth.max(depth);
                    continue;
                }
                _ if head => return None,
                Token::Symbol(s) if quoted => {
                    ops.push(Op::Sym(s.into()));
                    quoted = false;
                }
                // Only quoted symbols: other quoted data would need lists.
                _ if quoted => return None,
                Token::Open => {
                    open.push(0);
                    head = true;
                    continue;
                }
                Token::Quote => {
                    if !cache.is_macro("quote") {
                        return None;
                    }
                    quoted = true;
                    continue;
                }
                Token::Close => {
                    let argc = open.pop()?;
                    ops.push(Op::Call(argc));
                    depth -= argc + 1;
                }
                Token::Symbol(s) => ops.push(Op::Var(cache.value(s)?)),
                Token::Int(n) if n.unsigned_abs() < 1 << 61 => ops.push(Op::Push(ffi::from_i64(n))),
                Token::Int(n) => ops.push(Op::Int(n)),
                Token::Float(x) => ops.push(Op::Float(x)),
                Token::Str(s) => ops.push(Op::Str(s)),
                Token::Bool(b) => ops.push(Op::Push(Scm::bool(b))),
            }
            // A value was pushed: an argument of the open call, or a
            // top-level form's.
            depth += 1;
            max_depth = max_depth.max(depth);
            match open.last_mut() {
                Some(argc) => *argc += 1,
                None => {
                    ops.push(Op::End(toks.offset()));
                    depth -= 1;
                }
            }
        }
        if !open.is_empty() || quoted || max_depth > STACK {
            return None;
        }
        // The last form has no next one for the shell to take over.
        let Some(Op::End(next)) = ops.last_mut() else { return None };
        *next = LAST;
        Some(Program { ops, generation })
    })
}

/// Runs `text` if it is plain: `Some` of the last form's first value or
/// the error's text; `None` if the shell must evaluate it. In Guile mode.
pub(crate) fn eval(text: &str) -> Option<Result<Scm, String>> {
    let program = compile(text)?;
    RUNS.set(RUNS.get() + 1);
    let mut run = Run { program: &program, resume: None, key: ffi::BOOL_F, args: ffi::BOOL_F, thrown: false };
    // SAFETY: `fenced` and `handler` take this pointer, alive for the call;
    // the program outlives it and is dropped only after the catch returned.
    let value = unsafe {
        let data: *mut c_void = (&mut run as *mut Run).cast();
        ffi::scm_c_catch(ffi::BOOL_T, fenced, data, handler, data, None, std::ptr::null_mut())
    };
    if run.thrown {
        let text = crate::call_shell(crate::Shell::ErrorText, &[run.key, run.args]);
        return Some(Err(text.map_or_else(|e| e, |t| ffi::to_string(t).unwrap_or_default())));
    }
    Some(match run.resume {
        // A form changed the module's bindings: the shell runs the rest.
        Some(at) => crate::call_shell(crate::Shell::Value, &[crate::input(&text[at..])]),
        None => Ok(value),
    })
}

/// Texts this thread has run here, for tests (see [`crate::plain_eval_runs`]).
pub(crate) fn runs() -> u64 {
    RUNS.get()
}

/// A program's run. On the caller's stack, which the collector scans.
struct Run<'p> {
    program: &'p Program,
    resume: Option<usize>,
    key: Scm,
    args: Scm,
    thrown: bool,
}

/// The fence: runs when a non-local exit leaves the inner catch (which
/// takes every throw, so it is some other exit) and throws to the outer
/// catch instead.
unsafe extern "C" fn fence(_: *mut c_void) {
    crate::error::escaped()
}

/// Inside the outer catch: the fence, and inside it the catch the program
/// runs in.
unsafe extern "C" fn fenced(data: *mut c_void) -> Scm {
    // SAFETY: in Guile mode; the context opened is closed on the way out,
    // by either path; `data` is the `Run`, alive for the call.
    unsafe {
        ffi::scm_dynwind_begin(0);
        ffi::scm_dynwind_unwind_handler(fence, std::ptr::null_mut(), 0);
        let x = ffi::scm_c_catch(ffi::BOOL_T, body, data, handler, data, None, std::ptr::null_mut());
        ffi::scm_dynwind_end();
        x
    }
}

unsafe extern "C" fn handler(data: *mut c_void, key: Scm, args: Scm) -> Scm {
    // SAFETY: `data` is the `Run` that `run` passed to the catch, alive for it.
    let run = unsafe { &mut *(data as *mut Run) };
    run.key = key;
    run.args = args;
    run.thrown = true;
    ffi::BOOL_F
}

unsafe extern "C" fn body(data: *mut c_void) -> Scm {
    // SAFETY: `data` is the `Run` that `run` passed to the catch, in Guile mode.
    unsafe { exec(&mut *(data as *mut Run)) }
}

/// The first of several values (an error for none), as a one-value
/// continuation takes them.
///
/// # Safety
/// In Guile mode.
unsafe fn one(x: Scm) -> Scm {
    // SAFETY: both take any object; the second throws for no values.
    unsafe {
        if ffi::scm_c_nvalues(x) == 1 {
            x
        } else {
            ffi::scm_c_value_ref(x, 0)
        }
    }
}

/// Runs a program. A plain old frame: a throw may leave it at any call.
///
/// # Safety
/// In Guile mode, inside a catch (its calls may throw).
unsafe fn exec(run: &mut Run) -> Scm {
    // The values live on the C stack, which the collector scans.
    let mut stack = [ffi::UNSPECIFIED; STACK];
    let mut sp = 0;
    let mut last = ffi::UNSPECIFIED;
    for op in &run.program.ops {
        let x = match op {
            Op::Push(x) => *x,
            Op::Int(n) => ffi::from_i64(*n),
            Op::Float(f) => ffi::from_f64(*f),
            Op::Str(s) => ffi::string(s),
            Op::Sym(s) => ffi::symbol(s),
            // SAFETY: the compiler made `v` from a bound variable, which the program protects.
            Op::Var(v) => unsafe { ffi::scm_variable_ref(*v) },
            Op::Call(argc) => {
                sp -= argc + 1;
                let args = &mut stack[sp + 1..sp + 1 + argc];
                for a in args.iter_mut() {
                    // SAFETY: in Guile mode (the caller's).
                    *a = unsafe { one(*a) };
                }
                // SAFETY: `args` holds `argc` objects; a throw leaves through the caller's catch.
                unsafe { ffi::scm_call_n(stack[sp], stack.as_mut_ptr().add(sp + 1), *argc) }
            }
            Op::End(next) => {
                sp -= 1;
                // SAFETY: in Guile mode (the caller's).
                last = match unsafe { ffi::scm_c_nvalues(stack[sp]) } {
                    0 => ffi::UNSPECIFIED,
                    // SAFETY: as above.
                    _ => unsafe { one(stack[sp]) },
                };
                if *next != LAST && GENERATION.load(Ordering::Acquire) != run.program.generation {
                    run.resume = Some(*next);
                    break;
                }
                continue;
            }
        };
        stack[sp] = x;
        sp += 1;
    }
    last
}

subrs! {
    module_changed "%atomweave-module-changed" () {
        GENERATION.fetch_add(1, Ordering::AcqRel);
        Ok(ffi::UNSPECIFIED)
    }
    interrupt_check "%atomweave-interrupt-check" () {
        crate::interrupt::check()
    }
}

pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, ffi::Subr)> {
    vec![("%atomweave-module-changed", 0, 0, 0, module_changed as ffi::Subr), ("%atomweave-interrupt-check", 0, 0, 0, interrupt_check as ffi::Subr)]
}
