//! `scm:` grounded procedures: the core's ExecutionOutputLink and
//! EvaluationLink call Scheme procedures by name, as upstream's do.
//!
//! `scm:name` is the procedure the expression `name` gives in `(guile-user)`
//! (where a script's definitions are). It gets the argument atoms and
//! returns an atom, a truth value or another value; anything else, and any
//! exception it raises, is an error carrying its message. During the call
//! the space it runs in is the current atomspace (a query's scratch frame,
//! as upstream's).

use std::sync::Arc;

use atomweave::query::grounded::{self, Procedures};
use atomweave::{AtomSpace, Error, Handle, Value};

use crate::api::{current, handle_in, set_current};
use crate::{ffi, smob, with_guile};

struct SchemeProcedures;

/// Makes Scheme run `scm:` procedures in this process.
pub(crate) fn register() {
    grounded::register("scm", Arc::new(SchemeProcedures));
}

impl Procedures for SchemeProcedures {
    fn call(&self, space: &AtomSpace, name: &str, args: &[Handle]) -> atomweave::Result<Value> {
        let args: Vec<Value> = args.iter().map(|&h| Value::Atom(h)).collect();
        self.call_values(space, name, &args)
    }

    /// Atoms and values alike become Scheme objects. A procedure called for
    /// what it does (it returns `#<unspecified>`, or a boolean as `format`
    /// and `display` calls do) gives VoidValue, as upstream's null result.
    fn call_values(&self, space: &AtomSpace, name: &str, args: &[Value]) -> atomweave::Result<Value> {
        let failed = |e: String| Error::Procedure(format!("scm:{name}: {e}"));
        with_guile(|| {
            let call = smob::Call::enter(space);
            let index = call.index;
            let before = current();
            set_current(index);
            let objects = ffi::list(args.iter().map(|v| smob::to_scm(v, index)));
            let out = crate::apply(name, objects);
            set_current(before);
            let out = out.map_err(failed)?;
            if out == ffi::UNSPECIFIED || out == ffi::BOOL_T || out == ffi::BOOL_F {
                return Ok(Value::Void);
            }
            if smob::value_parts(out).is_none() && smob::tv_of(out).is_none() && smob::Atom::from_scm(out).is_none() {
                return Err(failed(format!("the procedure did not return Atomese (an atom, a truth value or a value) but {}", crate::error::describe(out))));
            }
            smob::from_scm(out, &mut |a| handle_in(index, a)).map_err(|e| failed(e.msg))
        })
    }
}
