//! Atoms and values as upstream's RocksDB stores hold them: s-expression text.
//!
//! What this file writes is what upstream's `Sexpr::encode_atom` and
//! `encode_value` write, byte for byte where it matters for finding an
//! atom again: an atom is `(ConceptNode "a")` or `(ListLink (ConceptNode
//! "a")(ConceptNode "b"))` (long type names, no space between members,
//! names escaped as C++'s `std::quoted` escapes: `"` and `\` only); a value
//! is `(FloatValue 1 0.5)`, `(StringValue "a")`, `(LinkValue ...)`,
//! `(SimpleTruthValue 0.9 0.8)`, ... Numbers are laid out as C's `%.16g`
//! lays them out; a double that needs 17 digits keeps all 17 (upstream
//! rounds it to 16), so that what atomweave writes reads back the same.
//! Atoms inside values are written in the long form (upstream writes the
//! short one there; its reader takes both).
//!
//! It is not the reader of values: those are Atomese, read by the core's
//! reader (`atomweave::sexpr::eval_value`). It reads atoms, in upstream's
//! form only, fast, into a flat list ([`Tree`]) for bulk adding.
//!
//! Invariant: text is walked with explicit stacks, never recursion, and
//! nests at most [`MAX_NESTING`] deep; written text is at most
//! [`MAX_PRINTED`] bytes.

use std::fmt::Write as _;

use atomweave::sexpr::parse::MAX_NESTING;
use atomweave::sexpr::{TooLarge, MAX_PRINTED};
use atomweave::{AtomSource, Handle, TruthValue, Type, Value};

use crate::{Result, StoreError};

/// Appends `s` in double quotes, `"` and `\` escaped (C++'s `std::quoted`).
pub(super) fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Appends atom `h` in upstream's form. A link's members print at every
/// place they occur: the text is refused past [`MAX_PRINTED`] bytes.
pub(super) fn push_atom(r: &(impl AtomSource + ?Sized), h: Handle, out: &mut String) -> Result<()> {
    let end = out.len().saturating_add(MAX_PRINTED);
    // (link, index of the next member to print)
    let mut stack: Vec<(Handle, usize)> = Vec::new();
    let mut next = Some(h);
    loop {
        if let Some(x) = next.take() {
            let t = r.get_type(x).ok_or(atomweave::Error::InvalidHandle(x))?;
            out.push('(');
            out.push_str(t.name());
            out.push(' ');
            if let Some(name) = r.name(x) {
                push_quoted(out, name);
                out.push(')');
            } else {
                stack.push((x, 0));
            }
        }
        if out.len() > end {
            return Err(TooLarge.into());
        }
        let Some((link, i)) = stack.last_mut() else { return Ok(()) };
        let members = r.outgoing(*link).unwrap_or_default();
        if *i < members.len() {
            next = Some(members[*i]);
            *i += 1;
        } else {
            out.push(')');
            stack.pop();
        }
    }
}

/// Appends `x` as C's `%.16g` lays it out (`0.5`, `1e+20`, `1e-05`,
/// `inf`, `nan`), with the shortest digits that read back to `x`.
pub(super) fn push_number(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str(if x.is_sign_negative() { "-nan" } else { "nan" });
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    if x.is_infinite() {
        out.push_str("inf");
        return;
    }
    if x == 0.0 {
        out.push('0');
        return;
    }
    let (digits, exp) = shortest_digits(x.abs());
    // %g: the exponent form below 1e-4 and from 1e16 on.
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    } else if exp < 0 {
        out.push_str("0.");
        (0..-exp - 1).for_each(|_| out.push('0'));
        out.push_str(&digits);
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
            (digits.len()..point).for_each(|_| out.push('0'));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
}

/// The shortest digits of a positive finite `x` (no leading or trailing
/// zeros) and the power of ten of the first: `x = d.ddd x 10^exp`.
fn shortest_digits(x: f64) -> (String, i32) {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x);
    let (mantissa, e) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().expect("ryu writes its exponent in digits")),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = int.chars().chain(frac.chars()).collect();
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_string();
    (digits, int.len() as i32 - 1 - lead as i32 + e)
}

fn push_numbers(out: &mut String, head: &str, xs: &[f64]) {
    out.push('(');
    out.push_str(head);
    for &x in xs {
        out.push(' ');
        push_number(out, x);
    }
    out.push(')');
}

/// Appends `v` as upstream's `encode_value` writes it. A value upstream
/// cannot hold (a held AtomSpace, a stream) is refused, naming it.
pub(super) fn push_value(r: &(impl AtomSource + ?Sized), v: &Value, out: &mut String) -> Result<()> {
    let end = out.len().saturating_add(MAX_PRINTED);
    // `Some(v)` writes a value, `None` closes a LinkValue.
    let mut stack = vec![Some(v.clone())];
    while let Some(step) = stack.pop() {
        if out.len() > end {
            return Err(TooLarge.into());
        }
        let Some(v) = step else {
            out.push(')');
            continue;
        };
        match &v {
            Value::Float(xs) => push_numbers(out, "FloatValue", xs),
            Value::Truth(TruthValue::Simple { strength, confidence }) => push_numbers(out, "SimpleTruthValue", &[*strength, *confidence]),
            Value::Truth(TruthValue::Count { mean, confidence, count }) => push_numbers(out, "CountTruthValue", &[*mean, *confidence, *count]),
            Value::String(ss) => {
                out.push_str("(StringValue");
                for s in ss.iter() {
                    out.push(' ');
                    push_quoted(out, s);
                }
                out.push(')');
            }
            Value::Bool(bs) => {
                out.push_str("(BoolValue");
                bs.iter().for_each(|&b| out.push_str(if b { " 1" } else { " 0" }));
                out.push(')');
            }
            Value::Void => out.push_str("(VoidValue)"),
            Value::Atom(h) => push_atom(r, *h, out)?,
            Value::Link(_) | Value::Queue(_) => {
                let (head, items) = match &v {
                    Value::Link(vs) => ("(LinkValue ", vs.to_vec()),
                    Value::Queue(q) => ("(QueueValue ", q.snapshot()),
                    _ => unreachable!("matched above"),
                };
                out.push_str(head);
                stack.push(None);
                stack.extend(items.into_iter().rev().map(Some));
            }
            Value::Space(_) | Value::Stream(_) => {
                return Err(StoreError::Unsupported(format!("a {} cannot be stored in a RocksDB store", value_type_name(&v))));
            }
        }
    }
    Ok(())
}

fn value_type_name(v: &Value) -> &'static str {
    match v {
        Value::Space(_) => "AtomSpace held as a value",
        Value::Stream(st) => st.stream_type().name(),
        _ => "value",
    }
}

/// One atom of a [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Item {
    /// A node, its name at `names[start..end]`.
    Node { t: Type, start: u32, end: u32 },
    /// A link of the `arity` atoms (trees) just before it.
    Link { t: Type, arity: u32 },
}

/// Atoms read from upstream's s-expressions, members before the links
/// that hold them (post-order), names in one buffer: one allocation for
/// a whole chunk of atoms.
#[derive(Default)]
pub(super) struct Tree {
    pub(super) items: Vec<Item>,
    pub(super) names: String,
}

impl Tree {
    pub(super) fn clear(&mut self) {
        self.items.clear();
        self.names.clear();
    }

    pub(super) fn name(&self, start: u32, end: u32) -> &str {
        &self.names[start as usize..end as usize]
    }

    /// Appends the atom `text` writes (upstream's form, any whitespace
    /// between parts); an error names what is wrong and where.
    pub(super) fn push(&mut self, text: &str) -> Result<()> {
        let (items, names) = (self.items.len(), self.names.len());
        let r = self.read(text.as_bytes());
        if r.is_err() {
            self.items.truncate(items);
            self.names.truncate(names);
        }
        r.map_err(|e| match e {
            StoreError::Corrupt(msg) => StoreError::Corrupt(format!("{msg} in the atom `{}`", excerpt(text))),
            e => e,
        })
    }

    fn read(&mut self, s: &[u8]) -> Result<()> {
        let bad = |what: &str, at: usize| StoreError::Corrupt(format!("{what} at byte {at}"));
        let skip = |mut i: usize| {
            while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            i
        };
        // Open links: (type, members so far).
        let mut open: Vec<(Type, u32)> = Vec::new();
        let mut i = skip(0);
        loop {
            if s.get(i) != Some(&b'(') {
                return Err(bad("expected `(`", i));
            }
            let start = i + 1;
            i = start;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                i += 1;
            }
            let name = std::str::from_utf8(&s[start..i]).expect("ASCII");
            let t = Type::from_name(name).filter(|t| t.is_atom()).ok_or_else(|| match Type::from_name(name) {
                None if name.is_empty() => bad("no type name", start),
                None => StoreError::Backend(format!("the store holds atoms of type {name}, which is not known here (register its type family first)")),
                Some(_) => bad(&format!("{name} is not an atom type"), start),
            })?;
            i = skip(i);
            if t.is_node() {
                i = self.read_name(s, i, t)?;
                i = skip(i);
                if s.get(i) != Some(&b')') {
                    return Err(bad("expected `)` after a node's name", i));
                }
                i += 1;
            } else if open.len() >= MAX_NESTING {
                return Err(bad(&format!("links nested deeper than {MAX_NESTING}"), i));
            } else {
                open.push((t, 0));
            }
            // Close every link that ends here.
            loop {
                i = skip(i);
                let Some(top) = open.last_mut() else {
                    return if i == s.len() { Ok(()) } else { Err(bad("text after the atom", i)) };
                };
                if s.get(i) == Some(&b'(') {
                    top.1 += 1;
                    break;
                }
                if s.get(i) != Some(&b')') {
                    return Err(bad("expected `(` or `)` in a link", i));
                }
                i += 1;
                let (t, arity) = open.pop().expect("a link is open");
                self.items.push(Item::Link { t, arity });
            }
        }
    }

    /// Reads a quoted node name at `i`, `\` escaping the byte after it;
    /// returns where it ends.
    fn read_name(&mut self, s: &[u8], mut i: usize, t: Type) -> Result<usize> {
        if s.get(i) != Some(&b'"') {
            return Err(StoreError::Corrupt(format!("expected a quoted name at byte {i}")));
        }
        i += 1;
        let start = self.names.len();
        let mut bytes = Vec::new();
        loop {
            match s.get(i) {
                None => return Err(StoreError::Corrupt("a name without its closing quote".into())),
                Some(b'"') => break,
                Some(b'\\') if i + 1 < s.len() => {
                    bytes.push(s[i + 1]);
                    i += 2;
                }
                Some(&c) => {
                    bytes.push(c);
                    i += 1;
                }
            }
        }
        let name = String::from_utf8(bytes).map_err(|_| StoreError::Corrupt("a name that is not UTF-8".into()))?;
        self.names.push_str(&name);
        let end = self.names.len();
        let (start, end) = (u32::try_from(start), u32::try_from(end));
        let (Ok(start), Ok(end)) = (start, end) else {
            return Err(StoreError::Unsupported("more than 4 GiB of names in one chunk".into()));
        };
        self.items.push(Item::Node { t, start, end });
        Ok(i + 1)
    }
}

/// An atom's text taken apart one level: its type's name and, for a
/// link, its members' texts (`None` for a node). For deleting, where only
/// the members' texts are needed, not their atoms.
pub(super) fn members_text(text: &str) -> Result<(&str, Option<Vec<&str>>)> {
    let bad = || StoreError::Corrupt(format!("the atom `{}` is not an s-expression", excerpt(text)));
    let s = text.as_bytes();
    let body = text.strip_prefix('(').ok_or_else(bad)?;
    let name_end = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).ok_or_else(bad)?;
    let mut i = 1 + name_end;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    if s.get(i) != Some(&b'(') && s.get(i) != Some(&b')') {
        return Ok((&body[..name_end], None));
    }
    let mut members = Vec::new();
    let (mut depth, mut start, mut quoted) = (0usize, 0usize, false);
    while i < s.len() {
        match s[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b'(' if !quoted => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b')' if !quoted && depth == 0 => return Ok((&body[..name_end], Some(members))),
            b')' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    members.push(&text[start..=i]);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(bad())
}

/// The first 80 characters of `text`, for error messages.
pub(super) fn excerpt(text: &str) -> String {
    if text.chars().count() <= 80 {
        return text.to_string();
    }
    text.chars().take(77).chain("...".chars()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::types::{CONCEPT_NODE, LIST_LINK};

    fn num(x: f64) -> String {
        let mut s = String::new();
        push_number(&mut s, x);
        s
    }

    /// The layout of C's `%.16g`, as upstream's FloatValue prints.
    #[test]
    fn numbers_are_laid_out_as_printf_g() {
        let cases = [
            (0.5, "0.5"),
            (1.0, "1"),
            (-2.0, "-2"),
            (0.0, "0"),
            (100.0, "100"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000"),
            (1e16, "1e+16"),
            (1.5e20, "1.5e+20"),
            (1e-300, "1e-300"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (x, want) in cases {
            assert_eq!(num(x), want, "{x}");
        }
        // 17 digits where 16 do not read back.
        let x = 0.1 + 0.2;
        assert_eq!(num(x), "0.30000000000000004");
        assert_eq!(num(x).parse::<f64>().unwrap(), x);
    }

    #[test]
    fn atoms_read_into_a_flat_tree() {
        let mut tree = Tree::default();
        tree.push("(ListLink (ConceptNode \"a\")(ListLink )(ConceptNode \"b\\\"\\\\c\"))").unwrap();
        let names: Vec<String> = tree.items.iter().map(|i| format!("{i:?}")).collect();
        assert_eq!(tree.items.len(), 4, "{names:?}");
        assert!(matches!(tree.items[0], Item::Node { t, start: 0, end: 1 } if t == CONCEPT_NODE));
        assert_eq!(tree.items[1], Item::Link { t: LIST_LINK, arity: 0 });
        let Item::Node { start, end, .. } = tree.items[2] else { panic!() };
        assert_eq!(tree.name(start, end), "b\"\\c");
        assert_eq!(tree.items[3], Item::Link { t: LIST_LINK, arity: 3 });
        for bad in
            ["(ConceptNode a)", "(ListLink (ConceptNode \"a\")", "(MartianNode \"x\")", "(FloatValue 1)", "(ConceptNode \"a\") x", "", "(ConceptNode \"a"]
        {
            let before = tree.items.len();
            let err = tree.push(bad).unwrap_err().to_string();
            assert_eq!(tree.items.len(), before, "{bad}: nothing kept");
            assert!(!err.is_empty());
        }
        let (t, m) = members_text("(ListLink (ConceptNode \"a)\\\"\")(ListLink (ConceptNode \"b\")) )").unwrap();
        assert_eq!((t, m.unwrap()), ("ListLink", vec!["(ConceptNode \"a)\\\"\")", "(ListLink (ConceptNode \"b\"))"]));
        assert_eq!(members_text("(ConceptNode \"(x)\")").unwrap(), ("ConceptNode", None));
        assert!(members_text("(ListLink (ConceptNode \"a\")").is_err());
        let deep = "(ListLink ".repeat(MAX_NESTING + 1) + &")".repeat(MAX_NESTING + 1);
        assert!(tree.push(&deep).unwrap_err().to_string().contains("nested deeper"));
    }
}
