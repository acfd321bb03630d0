//! `%atomweave-read`: a reader for the plain Scheme that shell commands and
//! benchmark entries are made of (lists, quotes, strings, numbers, symbols,
//! booleans, comments). Guile's own reader takes ~10 us for a one-line
//! command on the development machines; this one well under one. Text with
//! anything else (vectors, characters, `#` syntax, dotted pairs, rationals,
//! quasiquote) gives `#f`, and the caller uses Guile's reader.
//!
//! The work stack is itself a Scheme list held in a local variable, so the
//! collector (which scans the stack, not Rust's heap) sees every object made
//! so far.

use crate::ffi::{self, Scm, EOL};

const LIST: i64 = 0;
const QUOTE: i64 = 1;

/// Reads every expression of `text`: a Scheme list of them, or `None` when
/// the text needs Guile's reader (or is unbalanced, for Guile to report).
pub fn read_all(text: &str) -> Option<Scm> {
    // SAFETY: every object made here is reachable from `stack` or `top`,
    // locals the collector scans; cons and the constructors do not throw.
    unsafe {
        // Frames, innermost first: (kind . reversed items).
        let mut stack = EOL;
        // Finished top-level expressions, reversed.
        let mut top = EOL;
        let bytes = text.as_bytes();
        let mut i = 0;
        // Adds a finished item to the innermost frame (closing quote frames).
        let add = |stack: &mut Scm, top: &mut Scm, mut item: Scm| {
            loop {
                if !stack.is_pair() {
                    *top = ffi::scm_cons(item, *top);
                    return;
                }
                let frame = stack.car();
                let (kind, items) = (frame.car().fixnum().unwrap_or(LIST), frame.cdr());
                if kind == QUOTE {
                    item = ffi::list([ffi::symbol("quote"), item].into_iter());
                    *stack = stack.cdr();
                    continue;
                }
                // The frame is ours alone: extend it in place.
                frame.set_cdr(ffi::scm_cons(item, items));
                return;
            }
        };
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
                b';' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'(' => {
                    stack = ffi::scm_cons(ffi::scm_cons(Scm::from_fixnum(LIST), EOL), stack);
                    i += 1;
                }
                b')' => {
                    if !stack.is_pair() || stack.car().car().fixnum() != Some(LIST) {
                        return None;
                    }
                    let items = stack.car().cdr();
                    stack = stack.cdr();
                    let list = reverse(items);
                    add(&mut stack, &mut top, list);
                    i += 1;
                }
                b'\'' => {
                    stack = ffi::scm_cons(ffi::scm_cons(Scm::from_fixnum(QUOTE), EOL), stack);
                    i += 1;
                }
                b'"' => {
                    let (s, next) = string(bytes, i + 1)?;
                    add(&mut stack, &mut top, ffi::string(&s));
                    i = next;
                }
                b'#' => {
                    let end = token_end(bytes, i);
                    let b = match &text[i..end] {
                        "#t" | "#true" => ffi::BOOL_T,
                        "#f" | "#false" => ffi::BOOL_F,
                        _ => return None,
                    };
                    add(&mut stack, &mut top, b);
                    i = end;
                }
                b'`' | b',' | b'|' | b'[' | b']' | b'{' | b'}' => return None,
                _ => {
                    let end = token_end(bytes, i);
                    let atom = atom(&text[i..end])?;
                    add(&mut stack, &mut top, atom);
                    i = end;
                }
            }
        }
        if stack.is_pair() {
            return None;
        }
        Some(reverse(top))
    }
}

/// A fresh list of `items` reversed.
unsafe fn reverse(mut items: Scm) -> Scm {
    let mut out = EOL;
    while items.is_pair() {
        out = ffi::scm_cons(items.car(), out);
        items = items.cdr();
    }
    out
}

fn token_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'(' | b')' | b'"' | b';') {
        i += 1;
    }
    i
}

/// A string literal's text from just after its opening quote; and where it ends.
fn string(bytes: &[u8], mut i: usize) -> Option<(String, usize)> {
    let mut out = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((String::from_utf8(out).ok()?, i + 1)),
            b'\\' => {
                out.push(match bytes.get(i + 1)? {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    _ => return None,
                });
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// A number or a symbol; `None` for anything Guile might read otherwise.
fn atom(tok: &str) -> Option<Scm> {
    let b = tok.as_bytes();
    if tok == "." || tok.bytes().any(|c| matches!(c, b'|' | b'#' | b'\\' | b'[' | b']' | b'{' | b'}')) {
        return None;
    }
    // +i, -i, +inf.0, -nan.0: numbers to Guile.
    if b.len() > 1 && matches!(b[0], b'+' | b'-') && matches!(b[1], b'i' | b'n' | b'I' | b'N') {
        return None;
    }
    let numeric = b[0].is_ascii_digit() || (b.len() > 1 && matches!(b[0], b'+' | b'-' | b'.') && (b[1].is_ascii_digit() || b[1] == b'.'));
    if !numeric {
        return Some(ffi::symbol(tok));
    }
    let digits = tok.strip_prefix(['+', '-']).unwrap_or(tok);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        // An exact integer; past 64 bits Guile's bignums take over.
        return tok.parse::<i64>().ok().map(ffi::from_i64);
    }
    // Decimals with an `e` exponent; other exponent markers, rationals and
    // out-of-range values are Guile's to read (or refuse).
    if !tok.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E')) {
        return None;
    }
    let x = tok.parse::<f64>().ok()?;
    let mantissa = tok.split(['e', 'E']).next().unwrap_or("");
    let underflow = x == 0.0 && mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'));
    (x.is_finite() && !underflow).then(|| ffi::from_f64(x))
}

subrs! {
    read_primitive "%atomweave-read" (text) {
        Ok(ffi::with_str(text, read_all).flatten().unwrap_or(ffi::BOOL_F))
    }
}

pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, ffi::Subr)> {
    vec![("%atomweave-read", 1, 0, 0, read_primitive as ffi::Subr)]
}
