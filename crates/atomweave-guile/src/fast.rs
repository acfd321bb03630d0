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
//! What runs the same as `plain-eval` would (and only that takes this
//! path): numbers, strings and booleans; quoted symbols; bound variables
//! that are not macros; calls whose head names such a variable. Anything
//! else, or a symbol the cache cannot resolve, returns `None` and the
//! caller uses the shell, so nothing is evaluated twice.
//!
//! Non-local exits: a Scheme error inside the program longjmps back to
//! `scm_c_catch`, across [`body`] and [`exec`] only, which hold no value
//! with a destructor (plain old frames, as every primitive's frame is when
//! it throws; see `error.rs`).

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use foldhash::fast::RandomState;
use hashbrown::HashMap;

use crate::ffi::{self, Scm};
use crate::read::{tokens, Token};

/// Deepest value stack a program may need; deeper text takes the shell.
const STACK: usize = 64;
/// Names a thread's cache holds before it starts over, so text full of
/// fresh symbols (a client's, through the server) cannot grow it for good.
const CACHE_LIMIT: usize = 4096;

enum Op {
    /// An immediate, or an object protected from the collector.
    Push(Scm),
    Int(i64),
    Float(f64),
    Str(String),
    /// The value of a variable of the user module, read when the op runs.
    Var(Scm),
    /// Calls the procedure in a variable on the top `argc` values.
    Call { var: Scm, argc: usize },
    /// Ends a top-level form: its value becomes the result.
    End,
}

/// How the user module binds a symbol, as `(atomweave shell)` says.
#[derive(Copy, Clone)]
enum Binding {
    /// A bound variable that is not a macro: protected from the collector
    /// while cached.
    Var(Scm),
    Macro,
    Other,
}

/// Bumped whenever the user module gains a binding or a use (the shell's
/// `module-observe`): every thread's cache is stale then.
static GENERATION: AtomicU64 = AtomicU64::new(0);

struct Cache {
    generation: u64,
    bindings: HashMap<Box<str>, Binding, RandomState>,
    /// Quoted symbols, interned once and protected from the collector
    /// while cached.
    symbols: HashMap<Box<str>, Scm, RandomState>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache { generation: 0, bindings: HashMap::default(), symbols: HashMap::default() });
}

impl Cache {
    /// Starts over if the user module changed or the cache is full. Only
    /// before compiling: ops hold what the cache protects.
    fn fresh(&mut self) {
        let g = GENERATION.load(Ordering::Acquire);
        if g != self.generation || self.bindings.len() + self.symbols.len() > CACHE_LIMIT {
            let vars = self.bindings.drain().filter_map(|(_, b)| if let Binding::Var(v) = b { Some(v) } else { None });
            for x in vars.chain(self.symbols.drain().map(|(_, s)| s)) {
                // SAFETY: protected when cached.
                unsafe { ffi::scm_gc_unprotect_object(x) };
            }
            self.generation = g;
        }
    }

    fn binding(&mut self, name: &str) -> Binding {
        if let Some(&b) = self.bindings.get(name) {
            return b;
        }
        let b = match crate::call_shell(crate::Shell::Resolve, &[ffi::symbol(name)]) {
            Ok(x) if x == ffi::symbol("macro") => Binding::Macro,
            // SAFETY: a variable, kept alive while cached (unprotected when dropped).
            Ok(x) if !x.is_false() => Binding::Var(unsafe { ffi::scm_gc_protect_object(x) }),
            _ => Binding::Other,
        };
        self.bindings.insert(name.into(), b);
        b
    }

    fn symbol(&mut self, name: &str) -> Scm {
        *self.symbols.entry(name.into()).or_insert_with(|| {
            // SAFETY: interning does not throw; unprotected when dropped.
            unsafe { ffi::scm_gc_protect_object(ffi::symbol(name)) }
        })
    }
}

/// Compiles `text`, or `None` if it is not plain (see the module doc).
fn compile(text: &str) -> Option<Vec<Op>> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        cache.fresh();
        let mut ops = Vec::with_capacity(16);
        // Per open call: its head's variable and arguments so far.
        let mut open: Vec<(Option<Scm>, usize)> = Vec::with_capacity(8);
        let (mut depth, mut max_depth) = (0usize, 0usize);
        let mut quoted = false;
        for token in tokens(text) {
            let token = token?;
            if quoted {
                // Only quoted symbols: other quoted data would need lists.
                let Token::Symbol(s) = token else { return None };
                ops.push(Op::Push(cache.symbol(s)));
                quoted = false;
            } else {
                match token {
                    Token::Open => {
                        open.push((None, 0));
                        continue;
                    }
                    Token::Close => {
                        let (head, argc) = open.pop()?;
                        ops.push(Op::Call { var: head?, argc });
                        depth -= argc;
                    }
                    Token::Quote => {
                        if !matches!(cache.binding("quote"), Binding::Macro) {
                            return None;
                        }
                        quoted = true;
                        continue;
                    }
                    Token::Symbol(s) => {
                        let Binding::Var(v) = cache.binding(s) else { return None };
                        if let Some((head @ None, 0)) = open.last_mut() {
                            *head = Some(v);
                            continue;
                        }
                        ops.push(Op::Var(v));
                    }
                    Token::Int(n) => ops.push(Op::Int(n)),
                    Token::Float(x) => ops.push(Op::Float(x)),
                    Token::Str(s) => ops.push(Op::Str(s)),
                    Token::Bool(b) => ops.push(Op::Push(Scm::bool(b))),
                }
            }
            // A value was pushed: it is an argument of the open call, or a
            // top-level form.
            depth += 1;
            max_depth = max_depth.max(depth);
            match open.last_mut() {
                // `(42 ...)`, `("f" ...)`: not a call of a named procedure.
                Some((None, 0)) => return None,
                Some((_, argc)) => *argc += 1,
                None => {
                    ops.push(Op::End);
                    depth -= 1;
                }
            }
        }
        let complete = open.is_empty() && !quoted && ops.iter().any(|op| matches!(op, Op::End));
        (complete && max_depth <= STACK).then_some(ops)
    })
}

/// Texts run here so far, process-wide (see [`crate::fast_path_runs`]).
pub(crate) static RUNS: AtomicU64 = AtomicU64::new(0);

/// Runs `text` if it is plain: `Some` of the last form's value or the
/// error's text; `None` if the shell must evaluate it. In Guile mode.
pub(crate) fn eval(text: &str) -> Option<Result<Scm, String>> {
    let ops = compile(text)?;
    RUNS.fetch_add(1, Ordering::Relaxed);
    let mut caught = Caught { key: ffi::BOOL_F, args: ffi::BOOL_F, thrown: false };
    // SAFETY: `body` and `handler` take these pointers, alive for the call;
    // `ops` outlives it and is dropped only after the catch has returned.
    let value = unsafe {
        ffi::scm_c_catch(
            ffi::BOOL_T,
            body,
            (&ops as *const Vec<Op>).cast_mut().cast(),
            handler,
            (&mut caught as *mut Caught).cast(),
            None,
            std::ptr::null_mut(),
        )
    };
    if !caught.thrown {
        return Some(Ok(value));
    }
    let text = crate::call_shell(crate::Shell::ErrorText, &[caught.key, caught.args]);
    Some(Err(text.map_or_else(|e| e, |t| ffi::to_string(t).unwrap_or_default())))
}

/// What the handler saw thrown. On the caller's stack, which the collector scans.
struct Caught {
    key: Scm,
    args: Scm,
    thrown: bool,
}

unsafe extern "C" fn handler(data: *mut c_void, key: Scm, args: Scm) -> Scm {
    let caught = &mut *(data as *mut Caught);
    *caught = Caught { key, args, thrown: true };
    ffi::BOOL_F
}

unsafe extern "C" fn body(data: *mut c_void) -> Scm {
    exec(&*(data as *const Vec<Op>))
}

/// Runs a program. A plain old frame: a throw may leave it at any call.
unsafe fn exec(ops: &[Op]) -> Scm {
    // The values live on the C stack, which the collector scans.
    let mut stack = [ffi::UNSPECIFIED; STACK];
    let mut sp = 0;
    let mut last = ffi::UNSPECIFIED;
    for op in ops {
        let x = match op {
            Op::Push(x) => *x,
            Op::Int(n) => ffi::from_i64(*n),
            Op::Float(f) => ffi::from_f64(*f),
            Op::Str(s) => ffi::string(s),
            Op::Var(v) => ffi::scm_variable_ref(*v),
            Op::Call { var, argc } => {
                sp -= argc;
                ffi::scm_call_n(ffi::scm_variable_ref(*var), stack.as_mut_ptr().add(sp), *argc)
            }
            Op::End => {
                sp -= 1;
                last = stack[sp];
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
}

pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, ffi::Subr)> {
    vec![("%atomweave-module-changed", 0, 0, 0, module_changed as ffi::Subr)]
}
