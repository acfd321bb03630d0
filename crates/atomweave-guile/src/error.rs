//! Errors cross into Scheme as exceptions, never as unwinding Rust frames.
//!
//! Every primitive runs its body in [`guard`]: the body returns a `Result`
//! (and panics are caught), every Rust value is dropped, and only then is
//! the Scheme exception thrown, from a frame that holds nothing to drop.
//! So Guile's longjmp skips no destructor.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::{self, Scm};

/// Which Scheme exception key.
#[derive(Copy, Clone, Debug)]
enum Key {
    WrongType,
    Misc,
}

#[derive(Debug)]
pub struct Error {
    key: Key,
    pub(crate) msg: String,
}

pub type R<T> = Result<T, Error>;

impl Error {
    /// Upstream's `C++-EXCEPTION`.
    pub fn msg(msg: impl Into<String>) -> Error {
        Error { key: Key::Misc, msg: msg.into() }
    }

    /// `wrong-type-arg`: expected `what`, got `x`.
    pub fn wrong_type(what: &str, x: Scm) -> Error {
        Error { key: Key::WrongType, msg: format!("expected {what}, got {}", describe(x)) }
    }
}

impl From<atomweave::Error> for Error {
    fn from(e: atomweave::Error) -> Error {
        Error::msg(e.to_string())
    }
}

impl From<atomweave_store::StoreError> for Error {
    fn from(e: atomweave_store::StoreError) -> Error {
        Error::msg(e.to_string())
    }
}

/// A short description of a Scheme object, for messages (never runs Scheme code).
pub fn describe(x: Scm) -> String {
    if let Some(n) = x.fixnum() {
        return n.to_string();
    }
    if let Some(s) = ffi::to_string(x) {
        return format!("{s:?}");
    }
    if let Some(s) = ffi::symbol_name(x) {
        return format!("'{s}");
    }
    if let Some(f) = ffi::to_f64(x) {
        return f.to_string();
    }
    if let Some(a) = crate::smob::Atom::from_scm(x) {
        if a.space().contains(a.h) {
            return format!("the atom {}", atomweave::sexpr::atom_prefix(&*a.space(), a.h, atomweave::sexpr::Form::Wire, 200));
        }
        return "an extracted atom".into();
    }
    if crate::smob::is_value(x) {
        return "a value".into();
    }
    match x {
        ffi::BOOL_F => "#f".into(),
        ffi::BOOL_T => "#t".into(),
        x if x.is_null() => "'()".into(),
        x if x.is_pair() => "a list".into(),
        _ => "another kind of object".into(),
    }
}

/// Runs a primitive's body; its error becomes a Scheme exception from
/// procedure `subr`.
#[inline(always)]
pub fn guard(subr: &'static str, body: impl FnOnce() -> R<Scm>) -> Scm {
    let (key, msg) = match crate::outside_body(|| catch_unwind(AssertUnwindSafe(body))) {
        Ok(Ok(x)) => return x,
        Ok(Err(e)) => (e.key, ffi::string(&e.msg)),
        Err(panic) => {
            let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
            (Key::Misc, ffi::string(&format!("internal error (please report it): {what}")))
        }
    };
    // Nothing with a destructor is alive here: the Scheme objects are
    // collected by Guile, the Rust ones are dropped.
    raise(key, subr, msg)
}

/// Throws the error a non-local exit becomes where it would have jumped
/// over Rust frames (the shell's fence gives the same message).
#[cold]
pub(crate) fn escaped() -> ! {
    raise(Key::Misc, "scheme", crate::escaped_message())
}

/// Throws: a wrong argument as Guile's `wrong-type-arg`; any other failure
/// as upstream's `C++-EXCEPTION` with arguments `(procedure message)`, the
/// key upstream's scripts catch (`(opencog)` prints it as Guile prints an
/// error: "In procedure P: message").
#[inline(never)]
#[cold]
fn raise(key: Key, subr: &'static str, msg: Scm) -> ! {
    // SAFETY: all arguments are Scheme objects; throws (longjmp) over frames
    // that hold nothing to drop.
    unsafe {
        match key {
            Key::WrongType => {
                ffi::scm_error_scm(ffi::symbol("wrong-type-arg"), ffi::string(subr), ffi::string("~A"), ffi::list([msg].into_iter()), ffi::BOOL_F)
            }
            Key::Misc => ffi::scm_throw(ffi::symbol("C++-EXCEPTION"), ffi::list([ffi::string(subr), msg].into_iter())),
        }
    }
}
