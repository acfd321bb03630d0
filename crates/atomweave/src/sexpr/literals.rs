//! Literals of the Atomese text: decimal numbers (correctly rounded, by
//! `fast-float2`, which also says where a number ends) and string escapes,
//! shared by the general reader ([`parse`](super::parse)) and the loader's
//! reader for data files ([`data_reader`](super::data_reader)).
//!
//! **Invariant:** both readers read a literal to the same number or text.

use memchr::memchr;

/// The value of a Scheme decimal number token, or `None` if it is a symbol.
/// Scheme spells infinities and NaNs `+inf.0` and `-nan.0`: the decimal
/// reader's `inf` and `NaN` never get past [`number_prefix`]'s check.
pub(super) fn parse_number(token: &str) -> Option<f64> {
    match number_prefix(token.as_bytes()) {
        Some((x, len)) => (len == token.len()).then_some(x),
        None => match token {
            "+inf.0" => Some(f64::INFINITY),
            "-inf.0" => Some(f64::NEG_INFINITY),
            "+nan.0" => Some(f64::NAN),
            "-nan.0" => Some(-f64::NAN),
            _ => None,
        },
    }
}

/// The decimal number (sign, digits, point, digits, exponent) at the start
/// of `bytes`, and its length: what [`parse_number`] reads from a token
/// that is all of it. `None` where no digit or point follows the sign (the
/// reader below also takes `inf` and `nan`, which Scheme spells otherwise).
/// Correctly rounded, as the standard library's; faster, and it says where
/// the number ends, so a token need not be found first.
pub(super) fn number_prefix(bytes: &[u8]) -> Option<(f64, usize)> {
    let signed = usize::from(matches!(bytes.first()?, b'+' | b'-'));
    if !matches!(bytes.get(signed)?, b'0'..=b'9' | b'.') {
        return None;
    }
    fast_float2::parse_partial(bytes).ok()
}

/// Decodes the escapes of a string literal's contents. An error carries the
/// byte offset of the offending backslash.
pub(super) fn unescape(text: &str) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    while let Some(k) = memchr(b'\\', &text.as_bytes()[done..]) {
        let at = done + k;
        out.push_str(&text[done..at]);
        let after = &text[at + 1..];
        let Some(c) = after.chars().next() else {
            return Err((at, "`\\` at the end of a string".to_owned()));
        };
        let (decoded, used) = match c {
            '"' => ('"', 1),
            '\\' => ('\\', 1),
            'n' => ('\n', 1),
            't' => ('\t', 1),
            'r' => ('\r', 1),
            '0' => ('\0', 1),
            'a' => ('\x07', 1),
            'x' => hex_escape(&after[1..]).map_err(|message| (at, message))?,
            other if other.is_whitespace() || other.is_control() => {
                return Err((at, format!("unknown escape in string: `\\` followed by U+{:04X}", u32::from(other))));
            }
            other => return Err((at, format!("unknown escape `\\{other}` in string"))),
        };
        out.push(decoded);
        done = at + 1 + used;
    }
    out.push_str(&text[done..]);
    Ok(out)
}

/// Guile's `\xHH;` escape, given what follows the `x`: the character and the
/// bytes used, counting the `x`.
fn hex_escape(rest: &str) -> Result<(char, usize), String> {
    let digits = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
    if digits == 0 || rest.as_bytes().get(digits) != Some(&b';') {
        return Err("bad `\\x` escape in string: expected hex digits and a `;`, as in `\\x41;`".to_owned());
    }
    let hex = &rest[..digits];
    match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
        Some(c) => Ok((c, digits + 2)),
        None => Err(format!("bad `\\x` escape in string: `\\x{hex};` is not a Unicode character")),
    }
}
