//! The part of libguile's C API the extension uses, and Rust versions of the
//! header macros it needs (immediates, pairs, SMOB words), checked against
//! the real library by the Scheme test suite and `tests::immediates`.
//!
//! Functions marked "may throw" longjmp on bad input: call them only with
//! input already checked, or where no Rust frame with pending destructors
//! lies between the call and the nearest catch.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_long, c_void};

/// A Scheme object: `SCM` (a tagged word).
///
/// Invariant: the word is an immediate or points to a heap object of
/// Guile's. Only libguile's calls, the constants below and the unsafe
/// [`Scm::from_bits`] make one, so the safe predicates (`is_pair`, ...) may
/// read a heap object's first word.
#[repr(transparent)]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Scm(usize);

pub type scm_t_bits = usize;

pub const BOOL_F: Scm = Scm(0x004);
const ELISP_NIL: Scm = Scm(0x104);
pub const EOL: Scm = Scm(0x304);
pub const BOOL_T: Scm = Scm(0x404);
pub const UNSPECIFIED: Scm = Scm(0x804);
pub const UNDEFINED: Scm = Scm(0x904);

impl Scm {
    /// The object's word, as libguile's `SCM_UNPACK`.
    pub const fn bits(self) -> usize {
        self.0
    }

    /// The object whose word [`Scm::bits`] gave.
    ///
    /// # Safety
    /// `bits` must be an immediate or the word of a heap object that is
    /// still alive (protected, or reachable from Scheme).
    pub const unsafe fn from_bits(bits: usize) -> Scm {
        Scm(bits)
    }

    pub fn bool(b: bool) -> Scm {
        if b {
            BOOL_T
        } else {
            BOOL_F
        }
    }

    /// `scm_is_false`: `#f` or Elisp's nil.
    pub fn is_false(self) -> bool {
        self.0 & !0x100 == BOOL_F.0
    }

    /// An optional argument that was not given.
    pub fn is_undefined(self) -> bool {
        self == UNDEFINED
    }

    /// `scm_is_null`: `'()` or Elisp's nil.
    pub fn is_null(self) -> bool {
        self.0 & !(EOL.0 ^ ELISP_NIL.0) == ELISP_NIL.0 & EOL.0
    }

    fn is_heap(self) -> bool {
        self.0 & 6 == 0
    }

    /// Word `n` of a heap object.
    ///
    /// # Safety
    /// `self` must be a heap object of more than `n` words.
    unsafe fn word(self, n: usize) -> usize {
        // SAFETY: the caller's.
        unsafe { *(self.0 as *const usize).add(n) }
    }

    /// `scm_is_symbol` (a macro in libguile: type code 7 of a heap object).
    pub fn is_symbol(self) -> bool {
        // SAFETY: a heap object (the type's invariant) has a first word.
        self.is_heap() && unsafe { self.word(0) } & 0x7f == 0x05
    }

    pub fn is_pair(self) -> bool {
        // SAFETY: a heap object (the type's invariant) has a first word.
        self.is_heap() && unsafe { self.word(0) } & 1 == 0
    }

    /// `SCM_CAR`.
    ///
    /// # Safety
    /// `self` must be a pair (`is_pair`).
    pub unsafe fn car(self) -> Scm {
        // SAFETY: a pair has two words, the car first.
        Scm(unsafe { self.word(0) })
    }

    /// `SCM_CDR`.
    ///
    /// # Safety
    /// `self` must be a pair (`is_pair`).
    pub unsafe fn cdr(self) -> Scm {
        // SAFETY: a pair has two words, the cdr second.
        Scm(unsafe { self.word(1) })
    }

    /// `SCM_SETCDR`.
    ///
    /// # Safety
    /// `self` must be a pair that no one else holds yet (Guile's collector
    /// needs no write barrier for it then).
    pub unsafe fn set_cdr(self, x: Scm) {
        // SAFETY: a pair's second word is its cdr; the caller owns the pair.
        unsafe { *(self.0 as *mut usize).add(1) = x.0 };
    }

    /// A fixnum's value, if this is one.
    pub fn fixnum(self) -> Option<i64> {
        (self.0 & 2 != 0).then_some((self.0 as i64) >> 2)
    }

    /// A small integer as a fixnum (|n| < 2^61).
    pub fn from_fixnum(n: i64) -> Scm {
        debug_assert!(n.unsigned_abs() < 1 << 61);
        Scm(((n << 2) | 2) as usize)
    }

    /// `SCM_SMOB_PREDICATE`.
    pub fn is_smob(self, tag: scm_t_bits) -> bool {
        // SAFETY: a heap object (the type's invariant) has a first word.
        self.is_heap() && unsafe { self.word(0) } & 0xffff == tag
    }

    /// A SMOB's flag bits (`SCM_SMOB_FLAGS`).
    ///
    /// # Safety
    /// `self` must be a SMOB (`is_smob`).
    pub unsafe fn smob_flags(self) -> usize {
        // SAFETY: a SMOB's first word holds its tag and flags.
        unsafe { self.word(0) >> 16 }
    }

    /// A SMOB's data word `n`.
    ///
    /// # Safety
    /// `self` must be a SMOB (`is_smob`) and `n` in `1..=3`.
    pub unsafe fn smob_data(self, n: usize) -> usize {
        // SAFETY: a double SMOB has four words, data in 1..=3.
        unsafe { self.word(n) }
    }

    /// Iterates a proper list's elements (stops at the first non-pair).
    pub fn list_iter(self) -> ListIter {
        ListIter(self)
    }
}

pub struct ListIter(Scm);

impl Iterator for ListIter {
    type Item = Scm;

    fn next(&mut self) -> Option<Scm> {
        if !self.0.is_pair() {
            return None;
        }
        // SAFETY: a pair.
        let (a, d) = unsafe { (self.0.car(), self.0.cdr()) };
        self.0 = d;
        Some(a)
    }
}

pub type Subr = *const c_void;
pub type SmobPrint = unsafe extern "C" fn(Scm, Scm, *mut c_void) -> c_int;
pub type SmobEqualp = unsafe extern "C" fn(Scm, Scm) -> Scm;

#[link(name = "guile-3.0")]
extern "C" {
    pub fn scm_with_guile(f: unsafe extern "C" fn(*mut c_void) -> *mut c_void, data: *mut c_void) -> *mut c_void;
    pub fn scm_c_register_extension(lib: *const c_char, init: *const c_char, f: unsafe extern "C" fn(*mut c_void), data: *mut c_void);

    pub fn scm_c_define_gsubr(name: *const c_char, req: c_int, opt: c_int, rst: c_int, f: Subr) -> Scm;
    pub fn scm_c_define(name: *const c_char, value: Scm) -> Scm;
    pub fn scm_c_make_vector(len: usize, fill: Scm) -> Scm;
    /// May throw: only for a vector and an index in range.
    pub fn scm_c_vector_set_x(v: Scm, k: usize, obj: Scm);
    pub fn scm_c_export(name: *const c_char, ...);
    /// May throw (if the code does).
    pub fn scm_c_eval_string(code: *const c_char) -> Scm;
    pub fn scm_c_public_ref(module: *const c_char, name: *const c_char) -> Scm;
    /// May throw (whatever the procedure does).
    pub fn scm_call_1(proc_: Scm, a: Scm) -> Scm;
    /// May throw (whatever the procedure does).
    pub fn scm_call_2(proc_: Scm, a: Scm, b: Scm) -> Scm;

    /// May throw (whatever the procedure does).
    pub fn scm_call_n(proc_: Scm, argv: *mut Scm, nargs: usize) -> Scm;
    /// Throws for an unbound variable: call only on bound ones, or under a catch.
    pub fn scm_variable_ref(var: Scm) -> Scm;
    pub fn scm_procedure_p(x: Scm) -> Scm;
    pub fn scm_macro_p(x: Scm) -> Scm;
    /// May throw: only for a variable.
    pub fn scm_variable_bound_p(var: Scm) -> Scm;
    /// How many values `x` is: a values object's count, else 1.
    pub fn scm_c_nvalues(x: Scm) -> usize;
    /// Throws for an index out of range.
    pub fn scm_c_value_ref(x: Scm, idx: usize) -> Scm;
    pub fn scm_current_module() -> Scm;
    pub fn scm_current_thread() -> Scm;
    /// Runs the thunk `proc_` in `thread` at its next safe point.
    pub fn scm_system_async_mark_for_thread(proc_: Scm, thread: Scm) -> Scm;
    /// May throw (for a module that cannot be made).
    pub fn scm_c_resolve_module(name: *const c_char) -> Scm;
    /// Runs `body(body_data)`; a throw whose key matches `tag` (`#t`: any)
    /// ends it, and `handler(handler_data, key, args)` gives the result.
    pub fn scm_c_catch(
        tag: Scm,
        body: unsafe extern "C" fn(*mut c_void) -> Scm,
        body_data: *mut c_void,
        handler: unsafe extern "C" fn(*mut c_void, Scm, Scm) -> Scm,
        handler_data: *mut c_void,
        pre_unwind_handler: Option<unsafe extern "C" fn(*mut c_void, Scm, Scm) -> Scm>,
        pre_unwind_handler_data: *mut c_void,
    ) -> Scm;

    /// Opens a dynamic-wind context (flags 0) for the handlers below.
    pub fn scm_dynwind_begin(flags: c_int);
    /// Closes the context [`scm_dynwind_begin`] opened.
    pub fn scm_dynwind_end();
    /// With flags 0, `f(data)` runs when a non-local exit leaves the context.
    pub fn scm_dynwind_unwind_handler(f: unsafe extern "C" fn(*mut c_void), data: *mut c_void, flags: c_int);

    pub fn scm_make_smob_type(name: *const c_char, size: usize) -> scm_t_bits;
    pub fn scm_set_smob_print(tag: scm_t_bits, f: SmobPrint);
    pub fn scm_set_smob_equalp(tag: scm_t_bits, f: SmobEqualp);
    pub fn scm_new_smob(tag: scm_t_bits, data: scm_t_bits) -> Scm;
    pub fn scm_new_double_smob(tag: scm_t_bits, d1: scm_t_bits, d2: scm_t_bits, d3: scm_t_bits) -> Scm;
    pub fn scm_gc_protect_object(obj: Scm) -> Scm;
    pub fn scm_gc_unprotect_object(obj: Scm) -> Scm;
    /// Reads one datum from a C string; may throw (ours are well-formed).
    pub fn scm_c_read_string(s: *const c_char) -> Scm;
    /// Does not throw for a port that is open or closed.
    pub fn scm_close_port(port: Scm) -> Scm;

    pub fn scm_is_string(x: Scm) -> c_int;
    pub fn scm_is_real(x: Scm) -> c_int;
    pub fn scm_from_utf8_stringn(s: *const c_char, len: usize) -> Scm;
    /// May throw: only for a string. The result is malloc'd.
    pub fn scm_to_utf8_stringn(s: Scm, len: *mut usize) -> *mut c_char;
    pub fn scm_from_utf8_symboln(s: *const c_char, len: usize) -> Scm;
    /// May throw: only for a symbol.
    pub fn scm_symbol_to_string(s: Scm) -> Scm;
    pub fn scm_from_double(x: f64) -> Scm;
    /// May throw: only for a real.
    pub fn scm_to_double(x: Scm) -> f64;
    pub fn scm_from_int64(x: i64) -> Scm;
    pub fn scm_cons(a: Scm, b: Scm) -> Scm;
    pub fn scm_ilength(list: Scm) -> c_long;
    /// May throw (a port error).
    pub fn scm_display(obj: Scm, port: Scm) -> Scm;

    pub fn scm_make_fluid_with_default(dflt: Scm) -> Scm;
    pub fn scm_fluid_ref(fluid: Scm) -> Scm;
    pub fn scm_fluid_set_x(fluid: Scm, value: Scm) -> Scm;

    /// Throws, always.
    pub fn scm_error_scm(key: Scm, subr: Scm, message: Scm, args: Scm, rest: Scm) -> !;
    pub fn scm_throw(key: Scm, args: Scm) -> !;
}

#[link(name = "gc")]
extern "C" {
    /// Boehm GC: pause collections (nesting), and resume them.
    pub fn scm_from_pointer(ptr: *mut c_void, finalizer: *mut c_void) -> Scm;
    pub fn GC_disable();
    pub fn GC_enable();
    /// Boehm GC: the most heap it may take; past it, an allocation fails.
    pub fn GC_set_max_heap_size(bytes: usize);
}

/// A Scheme string from UTF-8.
pub fn string(s: &str) -> Scm {
    // SAFETY: a valid buffer; allocation does not throw but on memory exhaustion.
    unsafe { scm_from_utf8_stringn(s.as_ptr().cast(), s.len()) }
}

/// A bytevector over `bytes`, not a copy: bytes that live as long as the
/// process (compiled in), which Scheme must not change.
pub fn static_bytevector(bytes: &'static [u8]) -> Scm {
    // SAFETY: `pointer->bytevector` of (system foreign) wraps the memory,
    // alive for good; a pointer without finalizer; lengths fit a fixnum.
    unsafe {
        let wrap = scm_c_public_ref(c"system foreign".as_ptr(), c"pointer->bytevector".as_ptr());
        let pointer = scm_from_pointer(bytes.as_ptr().cast_mut().cast(), std::ptr::null_mut());
        scm_call_2(wrap, pointer, Scm::from_fixnum(bytes.len() as i64))
    }
}

/// A symbol from UTF-8.
pub fn symbol(s: &str) -> Scm {
    // SAFETY: as `string`.
    unsafe { scm_from_utf8_symboln(s.as_ptr().cast(), s.len()) }
}

/// A Scheme list of `items`, in order.
pub fn list(items: impl DoubleEndedIterator<Item = Scm>) -> Scm {
    // SAFETY: cons does not throw. The items are on the stack or in registers
    // while the list is built, where the collector sees them, or already in
    // the list.
    items.rev().fold(EOL, |tail, x| unsafe { scm_cons(x, tail) })
}

/// Runs `f` on a Scheme string's text, borrowed (no copy but libguile's
/// own), if `x` is a string.
pub fn with_str<T>(x: Scm, f: impl FnOnce(&str) -> T) -> Option<T> {
    /// libguile's malloc'd copy, freed however `f` ends.
    struct Buf(*mut c_char);
    impl Drop for Buf {
        fn drop(&mut self) {
            // SAFETY: malloc'd by libguile, freed once.
            unsafe { libc::free(self.0.cast()) }
        }
    }
    // SAFETY: checked to be a string first, so nothing throws.
    unsafe {
        if scm_is_string(x) == 0 {
            return None;
        }
        let mut len = 0usize;
        let buf = Buf(scm_to_utf8_stringn(x, &mut len));
        let bytes = std::slice::from_raw_parts(buf.0.cast::<u8>(), len);
        // Guile's characters are Unicode scalar values: its UTF-8 is valid.
        Some(match std::str::from_utf8(bytes) {
            Ok(s) => f(s),
            Err(_) => f(&String::from_utf8_lossy(bytes)),
        })
    }
}

/// A Scheme string's text, if `x` is a string.
pub fn to_string(x: Scm) -> Option<String> {
    with_str(x, str::to_owned)
}

/// A symbol's name, if `x` is a symbol.
pub fn symbol_name(x: Scm) -> Option<String> {
    // SAFETY: checked to be a symbol first.
    unsafe { x.is_symbol().then(|| to_string(scm_symbol_to_string(x))).flatten() }
}

/// A real number's value, if `x` is one.
pub fn to_f64(x: Scm) -> Option<f64> {
    if let Some(n) = x.fixnum() {
        return Some(n as f64);
    }
    // SAFETY: checked to be a real first.
    unsafe { (scm_is_real(x) != 0).then(|| scm_to_double(x)) }
}

/// An exact integer's value, if `x` is one below 2^61 in magnitude (a
/// fixnum: every count, index and handle the API takes).
pub fn to_i64(x: Scm) -> Option<i64> {
    x.fixnum()
}

/// An integer as a Scheme number.
pub fn from_i64(n: i64) -> Scm {
    if n.unsigned_abs() < 1 << 61 {
        Scm::from_fixnum(n)
    } else {
        // SAFETY: does not throw.
        unsafe { scm_from_int64(n) }
    }
}

/// A double as a Scheme number.
pub fn from_f64(x: f64) -> Scm {
    // SAFETY: does not throw.
    unsafe { scm_from_double(x) }
}

/// Writes a Scheme string to a port (in SMOB printers). Called last, with
/// every Rust value already dropped: a port error throws.
pub fn display(text: Scm, port: Scm) {
    // SAFETY: a string and the printer's port.
    unsafe { scm_display(text, port) };
}
