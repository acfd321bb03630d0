//! `%atomweave-read`: a reader for the plain Scheme that shell commands and
//! benchmark entries are made of (lists, quotes, strings, numbers, symbols,
//! booleans, comments). Guile's own reader takes ~10 us for a one-line
//! command on the development machines; this one well under one. Text with
//! anything else (vectors, characters, `#` syntax, dotted pairs, rationals,
//! quasiquote) gives `#f`, and the caller uses Guile's reader.
//!
//! The collector is paused while a text is read, so the objects made can
//! wait on Rust's heap (which it does not scan) and each list is built once,
//! in order: a cons per element, no more.

use crate::ffi::{self, Scm, EOL};

/// Pauses Boehm GC's collections (allocation goes on) until dropped.
struct NoCollection;

impl NoCollection {
    fn new() -> NoCollection {
        // SAFETY: nests; undone by drop, however the read ends.
        unsafe { ffi::GC_disable() };
        NoCollection
    }
}

impl Drop for NoCollection {
    fn drop(&mut self) {
        // SAFETY: pairs with the GC_disable above.
        unsafe { ffi::GC_enable() };
    }
}

/// A list of `items`, in order.
fn list_of(items: &[Scm]) -> Scm {
    // SAFETY: cons does not throw.
    items.iter().rev().fold(EOL, |tail, &x| unsafe { ffi::scm_cons(x, tail) })
}

/// A token of plain Scheme text.
pub(crate) enum Token<'t> {
    Open,
    Close,
    Quote,
    Str(String),
    Bool(bool),
    Int(i64),
    Float(f64),
    Symbol(&'t str),
}

/// The tokens of plain text; an item is `None` where the text needs Guile's
/// reader (and iteration should stop).
pub(crate) struct Tokens<'t> {
    text: &'t str,
    i: usize,
}

pub(crate) fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, i: 0 }
}

impl Tokens<'_> {
    /// The byte offset just past the last token returned.
    pub(crate) fn offset(&self) -> usize {
        self.i
    }
}

impl<'t> Iterator for Tokens<'t> {
    type Item = Option<Token<'t>>;

    fn next(&mut self) -> Option<Option<Token<'t>>> {
        let (text, bytes) = (self.text, self.text.as_bytes());
        loop {
            let i = self.i;
            let b = *bytes.get(i)?;
            let (token, next) = match b {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {
                    self.i += 1;
                    continue;
                }
                b';' => {
                    self.i = bytes[i..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |n| i + n);
                    continue;
                }
                b'(' => (Some(Token::Open), i + 1),
                b')' => (Some(Token::Close), i + 1),
                b'\'' => (Some(Token::Quote), i + 1),
                b'"' => match string(bytes, i + 1) {
                    Some((s, next)) => (Some(Token::Str(s)), next),
                    None => (None, bytes.len()),
                },
                b'#' => {
                    let end = token_end(bytes, i);
                    let b = match &text[i..end] {
                        "#t" | "#true" => Some(Token::Bool(true)),
                        "#f" | "#false" => Some(Token::Bool(false)),
                        _ => None,
                    };
                    (b, end)
                }
                b'`' | b',' | b'|' | b'[' | b']' | b'{' | b'}' => (None, bytes.len()),
                _ => {
                    let end = token_end(bytes, i);
                    (atom(&text[i..end]), end)
                }
            };
            self.i = next;
            return Some(token);
        }
    }
}

/// Reads every expression of `text`: a Scheme list of them, or `None` when
/// the text needs Guile's reader (or is unbalanced, for Guile to report).
pub fn read_all(text: &str) -> Option<Scm> {
    let _paused = NoCollection::new();
    // Items of the open lists, innermost last; each open list's start in
    // `items`, or `None` for a quote waiting for its datum.
    let mut items: Vec<Scm> = Vec::with_capacity(16);
    let mut open: Vec<Option<usize>> = Vec::with_capacity(8);
    let mut top: Vec<Scm> = Vec::with_capacity(2);
    // Adds a finished datum to the innermost open list (closing quotes).
    let add = |items: &mut Vec<Scm>, open: &mut Vec<Option<usize>>, top: &mut Vec<Scm>, mut datum: Scm| {
        while let Some(None) = open.last() {
            open.pop();
            datum = list_of(&[ffi::symbol("quote"), datum]);
        }
        if open.is_empty() {
            top.push(datum);
        } else {
            items.push(datum);
        }
    };
    for token in tokens(text) {
        let datum = match token? {
            Token::Open => {
                open.push(Some(items.len()));
                continue;
            }
            Token::Quote => {
                open.push(None);
                continue;
            }
            Token::Close => {
                let Some(Some(start)) = open.pop() else { return None };
                let list = list_of(&items[start..]);
                items.truncate(start);
                list
            }
            Token::Str(s) => ffi::string(&s),
            Token::Bool(b) => Scm::bool(b),
            Token::Int(n) => ffi::from_i64(n),
            Token::Float(x) => ffi::from_f64(x),
            Token::Symbol(s) => ffi::symbol(s),
        };
        add(&mut items, &mut open, &mut top, datum);
    }
    if !open.is_empty() {
        return None;
    }
    Some(list_of(&top))
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
fn atom(tok: &str) -> Option<Token<'_>> {
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
        return Some(Token::Symbol(tok));
    }
    let digits = tok.strip_prefix(['+', '-']).unwrap_or(tok);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        // An exact integer; past 64 bits Guile's bignums take over.
        return tok.parse::<i64>().ok().map(Token::Int);
    }
    // Decimals with an `e` exponent; other exponent markers, rationals and
    // out-of-range values are Guile's to read (or refuse).
    if !tok.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E')) {
        return None;
    }
    let x = tok.parse::<f64>().ok()?;
    let mantissa = tok.split(['e', 'E']).next().unwrap_or("");
    let underflow = x == 0.0 && mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'));
    (x.is_finite() && !underflow).then_some(Token::Float(x))
}

subrs! {
    read_primitive "%atomweave-read" (text) {
        Ok(ffi::with_str(text, read_all).flatten().unwrap_or(ffi::BOOL_F))
    }
}

pub(crate) fn primitives() -> Vec<(&'static str, i32, i32, i32, ffi::Subr)> {
    vec![("%atomweave-read", 1, 0, 0, read_primitive as ffi::Subr)]
}
