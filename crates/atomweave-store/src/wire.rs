//! Upstream's s-expression commands that store an atom or one of its
//! values: what the `cog://` client sends a CogServer and what the
//! `file://` store appends, so that a server, Scheme and the core's reader
//! all replay them with Scheme's meaning (`#f` removes a value).

use atomweave::sexpr::{self, write_str_literal, write_structure, write_value};
use atomweave::{AtomSpace, Handle, Value};

use crate::{holds_only_live, live_values, Result};

/// The atom's text without its values.
pub(crate) fn structure(space: &AtomSpace, h: Handle) -> Result<String> {
    let mut s = String::new();
    write_structure(space, h, &mut s)?;
    Ok(s)
}

/// `(cog-set-tv! A TV)` when the atom has no other value, else
/// `(cog-set-values! A (alist ...))` with its truth value (the default
/// too, so that one set before is reset) and every value it has: what
/// upstream's client sends to store an atom.
pub(crate) fn store_atom(space: &AtomSpace, h: Handle) -> Result<String> {
    let me = structure(space, h)?;
    let tv = Value::Truth(space.get_tv(h).unwrap_or_default());
    let values = live_values(space, h);
    let mut s;
    if values.is_empty() {
        s = format!("(cog-set-tv! {me} ");
        write_value(space, &tv, &mut s)?;
        s.push(')');
        return Ok(s);
    }
    s = format!("(cog-set-values! {me} (alist (cons (PredicateNode ");
    write_str_literal(&mut s, sexpr::TV_KEY);
    s.push_str(") ");
    write_value(space, &tv, &mut s)?;
    s.push(')');
    for (k, v) in values {
        s.push_str(" (cons ");
        write_structure(space, k, &mut s)?;
        s.push(' ');
        write_value(space, &v, &mut s)?;
        s.push(')');
    }
    s.push_str("))");
    Ok(s)
}

/// `(cog-set-value! A KEY V)`, or `(cog-set-value! A KEY #f)` where the
/// atom has no value under the key (or one holding an atom no longer in
/// the space): the removal is stored too.
pub(crate) fn store_value(space: &AtomSpace, h: Handle, key: Handle) -> Result<String> {
    space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
    space.get_type(key).ok_or(atomweave::Error::InvalidHandle(key))?;
    let mut cmd = format!("(cog-set-value! {} {} ", structure(space, h)?, structure(space, key)?);
    match space.get_value(h, key) {
        Some(v) if holds_only_live(space, &v) => write_value(space, &v, &mut cmd)?,
        _ => cmd.push_str("#f"),
    }
    cmd.push(')');
    Ok(cmd)
}
