//! Prints atoms and values as Atomese, in the two forms upstream uses:
//!
//! - [`Form::Repl`]: what `display` and `cog-prt-atomspace` show: short type
//!   names, children indented two spaces per level, the truth value only when
//!   it is not the default.
//!   ```text
//!   (Evaluation (stv 0.9 0.8)
//!     (Predicate "breathe")
//!     (List
//!       (Concept "birds" (stv 0.5 0.1))
//!       (Concept "air")))
//!   ```
//! - [`Form::Wire`]: the network and file form: long names, one line, no space
//!   between children, every value (truth value included) in an `alist`:
//!   `(ConceptNode "birds" (alist (cons (PredicateNode "*-TruthValueKey-*")(SimpleTruthValue 0.5 0.1))))`.
//!
//! Numbers are printed in the shortest form that reads back to the same
//! double: the same text as upstream's 16 significant digits for every
//! value that has such a form, and the exact value where it needs 17.

use std::fmt::Write as _;
use std::io;

use crate::read::{AtomRead, AtomSource};
use crate::value::TV_KEY;
use crate::{AtomSpace, Handle, TruthValue, Type, Value};
use std::borrow::Cow;

/// Which printed form.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// Indented, short names, truth values only: for people.
    Repl,
    /// One line, long names, all values: for files and the network.
    Wire,
}

/// Most text one atom or value prints to: 256 MiB. Members shared inside
/// a link (or a LinkValue) print at every place they occur, so a link
/// built by doubling prints to 2^depth copies; such an atom is refused
/// ([`TooLarge`]) rather than printed until memory runs out.
pub const MAX_PRINTED: usize = 256 << 20;

/// An atom or value whose text would pass [`MAX_PRINTED`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the atom or value prints to more than {} MiB of text (members it shares print at every place they occur)", MAX_PRINTED >> 20)]
pub struct TooLarge;

/// Formats a double the way Scheme reads it back exactly.
pub fn fmt_f64(x: f64) -> String {
    let mut s = String::new();
    push_number(&mut s, x);
    s
}

/// Appends [`fmt_f64`]'s text of `x`. Where `ryu` lays a number out as
/// Rust does (from 1e-5 to 1e16, bar the `.0` it gives whole numbers),
/// and the number cannot be a tie ([`is_tie`]: a whole number has its
/// exact digits, and one with more binary places than a tie has is none),
/// `ryu`'s text is copied as it is, without taking its digits apart: most
/// numbers a dump prints (a truth value's, a count).
fn push_number(out: &mut String, x: f64) {
    let a = x.abs();
    if (1e-5..1e16).contains(&a) {
        let (m, k) = binary(a);
        let places = -(k + m.trailing_zeros() as i32);
        if places <= 0 || places > MAX_TIE_PLACES {
            let mut shortest = ryu::Buffer::new();
            let text = shortest.format_finite(x);
            out.push_str(text.strip_suffix(".0").unwrap_or(text));
            return;
        }
    }
    let _ = write!(out, "{}", Number(x));
}

/// A double as Scheme reads it back exactly ([`fmt_f64`]), written
/// straight into the output: no string of its own per number.
struct Number(f64);

impl std::fmt::Display for Number {
    /// Rust's own forms, `{x}` between 1e-5 and 1e17 and `{x:e}` outside,
    /// from `ryu`'s shortest digits, which it finds in a fraction of the
    /// time (a dump prints millions of numbers); `ryu`'s own layout
    /// differs (`1.0`, `1e16`), so only its digits and exponent are kept.
    /// Where two shortest forms are equally near (a double whose exact
    /// expansion is one digit longer, ending in 5), `ryu` takes the even
    /// one and Rust the upper: there Rust's own text is printed, so the text
    /// of every number (a NumberNode's name among them) stays what it was.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.write_str("+nan.0");
        }
        if x.is_infinite() {
            return f.write_str(if x > 0.0 { "+inf.0" } else { "-inf.0" });
        }
        let a = x.abs();
        let exponent_form = a != 0.0 && !(1e-5..1e17).contains(&a);
        let mut shortest = ryu::Buffer::new();
        let (digits, exp) = Digits::of(shortest.format_finite(a));
        let digits = digits.as_bytes();
        if is_tie(a, digits, exp) {
            return if exponent_form { write!(f, "{x:e}") } else { write!(f, "{x}") };
        }
        let mut text = Text::default();
        if x.is_sign_negative() {
            text.put(b"-");
        }
        // The value is 0.DIGITS x 10^point.
        let point = digits.len() as i32 + exp;
        if a == 0.0 {
            text.put(b"0");
        } else if exponent_form {
            text.put(&digits[..1]);
            if digits.len() > 1 {
                text.put(b".");
                text.put(&digits[1..]);
            }
            text.put(b"e");
            text.put_int(point - 1);
        } else if exp >= 0 {
            text.put(digits);
            (0..exp).for_each(|_| text.put(b"0"));
        } else if point > 0 {
            text.put(&digits[..point as usize]);
            text.put(b".");
            text.put(&digits[point as usize..]);
        } else {
            text.put(b"0.");
            (0..-point).for_each(|_| text.put(b"0"));
            text.put(digits);
        }
        f.write_str(text.as_str())
    }
}

/// Is `a` (finite, not negative) exactly halfway between `digits` x
/// 10^`exp` and the next number of as many digits (at most 17)? The
/// halfway number, (10 DIGITS + 5) x 10^(exp - 1), is a double only with
/// a negative power of ten whose fives divide it: then it is M / 2^p,
/// compared with `a`'s own m x 2^k in integers.
fn is_tie(a: f64, digits: &[u8], exp: i32) -> bool {
    // An integer halfway number is odd and above 2^53: no double; 5^26 is
    // above every 18-digit one.
    let p = 1 - exp;
    if !(1..=MAX_TIE_PLACES).contains(&p) {
        return false;
    }
    let (m, k) = binary(a);
    // The halfway number has at most p binary places, so `a` must too
    // (`push_number` leaves out those with more than any p).
    if m == 0 || k + m.trailing_zeros() as i32 + p < 0 {
        return false;
    }
    let n = digits.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) * 10 + 5;
    if n % 5u64.pow(p as u32) != 0 {
        return false;
    }
    let halfway = n / 5u64.pow(p as u32);
    // halfway / 2^p == m * 2^k  <=>  halfway == m * 2^(k + p)
    let shift = k + p;
    match shift {
        0.. if shift < 64 => u128::from(halfway) == u128::from(m) << shift,
        -63..0 => u128::from(halfway) << -shift == u128::from(m),
        _ => false,
    }
}

/// Most binary places a tie between two shortest forms has (see [`is_tie`]).
const MAX_TIE_PLACES: i32 = 25;

/// Finite, non-negative `a` as m x 2^k, m an integer of at most 53 bits.
fn binary(a: f64) -> (u64, i32) {
    let bits = a.to_bits();
    let (field, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, field - 1075)
    }
}

/// A number's text, on the stack: at most a sign, a point, 17 digits and
/// either 5 zeros (`0.0000` before the digits of a number near 1e-5) or
/// an exponent of four characters.
struct Text {
    bytes: [u8; 48],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text { bytes: [0; 48], len: 0 }
    }
}

impl Text {
    fn put(&mut self, bytes: &[u8]) {
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn put_int(&mut self, n: i32) {
        if n < 0 {
            self.put(b"-");
        }
        let mut digits = [0u8; 10];
        let (mut n, mut at) = (n.unsigned_abs(), digits.len());
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.put(&digits[at..]);
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("ASCII only")
    }
}

/// The significant digits of a number `ryu` printed, without leading or
/// trailing zeros (none for zero).
struct Digits(Text);

impl Digits {
    /// The digits of `printed` (`ryu`'s text of a finite, non-negative
    /// number) and the power of ten they are scaled by: `"1.50e-7"` is
    /// `15` and -8.
    fn of(printed: &str) -> (Digits, i32) {
        let (mantissa, mut exp) = match printed.split_once('e') {
            Some((m, e)) => (m, e.parse::<i32>().expect("ryu prints a whole exponent")),
            None => (printed, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        exp -= frac.len() as i32;
        let mut all = Text::default();
        all.put(int.trim_start_matches('0').as_bytes());
        if all.len == 0 {
            all.put(frac.trim_start_matches('0').as_bytes());
        } else {
            all.put(frac.as_bytes());
        }
        while all.len > 0 && all.bytes[all.len - 1] == b'0' {
            all.len -= 1;
            exp += 1;
        }
        (Digits(all), exp)
    }

    fn as_bytes(&self) -> &[u8] {
        &self.0.bytes[..self.0.len]
    }
}

/// Appends a string literal with `"`, `\` and control characters escaped.
pub fn write_str_literal(out: &mut String, s: &str) {
    out.push('"');
    // Most names are plain ASCII: copied whole up to the first byte that
    // may need an escape (a quote, a backslash, a control or non-ASCII byte).
    let plain = s.bytes().position(|b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\').unwrap_or(s.len());
    out.push_str(&s[..plain]);
    for c in s[plain..].chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl AtomSource for AtomSpace {
    fn get_type(&self, h: Handle) -> Option<Type> {
        AtomSpace::get_type(self, h)
    }
    fn name(&self, h: Handle) -> Option<&str> {
        AtomSpace::name(self, h)
    }
    fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        AtomSpace::outgoing(self, h)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        AtomSpace::get_tv(self, h)
    }
    fn key_values(&self, h: Handle) -> Cow<'_, [(Handle, Value)]> {
        Cow::Owned(AtomSpace::key_values(self, h))
    }
}

fn type_name(t: Type, form: Form) -> &'static str {
    match form {
        Form::Repl => t.short_name().unwrap_or_else(|| t.name()),
        Form::Wire => t.name(),
    }
}

/// The atom in the given form (no trailing newline). An invalid handle prints as `#<invalid #N>`.
pub fn atom_to_string(r: &(impl AtomSource + ?Sized), h: Handle, form: Form) -> Result<String, TooLarge> {
    let mut out = String::new();
    write_atom(r, h, form, &mut out)?;
    Ok(out)
}

/// Appends the atom in the given form. On [`TooLarge`], `out` holds part of it.
pub fn write_atom(r: &(impl AtomSource + ?Sized), h: Handle, form: Form, out: &mut String) -> Result<(), TooLarge> {
    let end = out.len().saturating_add(MAX_PRINTED);
    write_tree(r, h, if form == Form::Repl { Tree::Repl } else { Tree::Wire }, out, end)
}

/// The atom's first `chars` characters (at least 3), with `...` in place
/// of the rest when it is longer: printed only as far as needed, for
/// error messages.
pub fn atom_prefix(r: &(impl AtomSource + ?Sized), h: Handle, form: Form, chars: usize) -> String {
    let mut out = String::new();
    // A char takes at most 4 bytes: this many bytes hold `chars` + 1 of them.
    let _ = write_tree(r, h, if form == Form::Repl { Tree::Repl } else { Tree::Wire }, &mut out, 4 * chars + 4);
    if out.chars().count() > chars {
        out = out.chars().take(chars - 3).chain("...".chars()).collect();
    }
    out
}

/// Appends the atom's structure alone in the wire layout, without values:
/// `(ListLink (ConceptNode "a")(ConceptNode "b"))`, the form upstream's
/// network shell answers with.
pub fn write_structure(r: &(impl AtomSource + ?Sized), h: Handle, out: &mut String) -> Result<(), TooLarge> {
    write_structure_upto(r, h, out, out.len().saturating_add(MAX_PRINTED))
}

/// [`write_structure`], refused once `out` would be longer than `end`
/// bytes: a writer of many atoms into one reply bounds the whole reply.
pub fn write_structure_upto(r: &(impl AtomSource + ?Sized), h: Handle, out: &mut String, end: usize) -> Result<(), TooLarge> {
    write_tree(r, h, Tree::Structure, out, end.min(out.len().saturating_add(MAX_PRINTED)))
}

/// How [`write_tree`] prints each atom of a tree.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Tree {
    /// Wire layout, no values: what the network shells answer with.
    Structure,
    /// Indented, short names, non-default truth values.
    Repl,
    /// Wire layout with every value; a key prints as its structure.
    Wire,
}

/// Prints the tree under `h` with an explicit stack, not recursion: links
/// built through the API nest as deep as their makers like. Stops once
/// `out` is longer than `end`.
fn write_tree(r: &(impl AtomSource + ?Sized), h: Handle, tree: Tree, out: &mut String, end: usize) -> Result<(), TooLarge> {
    // `Some((atom, depth))` opens an atom; `None` closes the innermost one.
    // On the stack for atoms of ordinary size: one is printed per root.
    let mut stack: smallvec::SmallVec<[Option<(Handle, usize)>; 32]> = smallvec::smallvec![Some((h, 0usize))];
    while let Some(step) = stack.pop() {
        if out.len() > end {
            return Err(TooLarge);
        }
        let Some((h, depth)) = step else {
            out.push(')');
            continue;
        };
        if tree == Tree::Repl && depth > 0 {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', depth * 2));
        }
        let form = if tree == Tree::Repl { Form::Repl } else { Form::Wire };
        if !open_atom(r, h, form, out) {
            continue;
        }
        let out_set = r.outgoing(h).unwrap_or(&[]);
        match tree {
            Tree::Structure if r.name(h).is_none() => out.push(' '),
            Tree::Structure => {}
            Tree::Repl => {
                let tv = r.get_tv(h).unwrap_or_default();
                if !tv.is_default() {
                    out.push(' ');
                    write_tv(tv, out);
                }
            }
            Tree::Wire => {
                write_alist(r, h, out, end)?;
                if !out_set.is_empty() {
                    out.push(' ');
                }
            }
        }
        stack.push(None);
        stack.extend(out_set.iter().rev().map(|&c| Some((c, depth + 1))));
    }
    Ok(())
}

/// ` (alist (cons K V)...)`: the atom's values, when it has any besides
/// the default truth value. Keys print as their structure: a key's own
/// values belong to the key (printed where it is), and a key may hold, or
/// be, the atom whose value it keys.
fn write_alist(r: &(impl AtomSource + ?Sized), h: Handle, out: &mut String, end: usize) -> Result<(), TooLarge> {
    let tv = r.get_tv(h).unwrap_or_default();
    let kvs = r.key_values(h);
    if tv.is_default() && kvs.is_empty() {
        return Ok(());
    }
    out.push_str(" (alist");
    if !tv.is_default() {
        out.push_str(" (cons (PredicateNode ");
        write_str_literal(out, TV_KEY);
        out.push(')');
        value_into(r, &Value::Truth(tv), out, end)?;
        out.push(')');
    }
    // Keys in content order, as an unordered link's members: the same
    // values print the same in any space.
    let mut kvs: smallvec::SmallVec<[&(Handle, Value); 4]> = kvs.iter().collect();
    if kvs.len() > 1 {
        crate::order::sort_by_atom(r, &mut kvs, |kv| kv.0);
    }
    for (i, (k, v)) in kvs.into_iter().enumerate() {
        out.push_str(if i == 0 && tv.is_default() { " (cons " } else { "(cons " });
        write_tree(r, *k, Tree::Structure, out, end)?;
        value_into(r, v, out, end)?;
        out.push(')');
    }
    out.push(')');
    Ok(())
}

/// A truth value in the short form the REPL shows on atoms: `(stv s c)`, `(ctv m c n)`.
pub fn write_tv(tv: TruthValue, out: &mut String) {
    match tv {
        TruthValue::Simple { strength, confidence } => {
            push_numbers(out, "(stv", &[strength, confidence]);
        }
        TruthValue::Count { mean, confidence, count } => {
            push_numbers(out, "(ctv", &[mean, confidence, count]);
        }
    }
}

/// Appends `(HEAD x y ...)`: a truth value's or a FloatValue's numbers.
fn push_numbers(out: &mut String, head: &str, xs: &[f64]) {
    out.push_str(head);
    for &x in xs {
        out.push(' ');
        push_number(out, x);
    }
    out.push(')');
}

/// Appends `(Type "name"` or `(Type`; false (and `#<invalid #N>`) if `h`
/// is no atom.
fn open_atom(r: &(impl AtomSource + ?Sized), h: Handle, form: Form, out: &mut String) -> bool {
    let Some(t) = r.get_type(h) else {
        let _ = write!(out, "#<invalid {h}>");
        return false;
    };
    out.push('(');
    out.push_str(type_name(t, form));
    if let Some(name) = r.name(h) {
        out.push(' ');
        write_str_literal(out, name);
    }
    true
}

/// Appends a value in wire form: `(FloatValue 1 2)`, `(SimpleTruthValue 0.9 0.8)`, ...
/// LinkValues nest to any depth: they are walked with a stack.
pub fn write_value(r: &(impl AtomSource + ?Sized), v: &Value, out: &mut String) -> Result<(), TooLarge> {
    write_value_upto(r, v, out, out.len().saturating_add(MAX_PRINTED))
}

/// [`write_value`], refused once `out` would be longer than `end` bytes.
pub fn write_value_upto(r: &(impl AtomSource + ?Sized), v: &Value, out: &mut String, end: usize) -> Result<(), TooLarge> {
    value_into(r, v, out, end.min(out.len().saturating_add(MAX_PRINTED)))
}

/// [`write_value`] until `out` is longer than `end`: a LinkValue may hold
/// one value many times over.
fn value_into(r: &(impl AtomSource + ?Sized), v: &Value, out: &mut String, end: usize) -> Result<(), TooLarge> {
    // Most values hold no values: printed with no stack to keep.
    if !matches!(v, Value::Link(_) | Value::Queue(_)) {
        if out.len() > end {
            return Err(TooLarge);
        }
        return value_item(r, v, out, end, &mut Vec::new());
    }
    // `Some(v)` prints a value; `None` closes the innermost LinkValue. The
    // values are clones (a reference count each): a queue's are a snapshot.
    let mut stack = vec![Some(v.clone())];
    while let Some(step) = stack.pop() {
        if out.len() > end {
            return Err(TooLarge);
        }
        let Some(v) = step else {
            out.push(')');
            continue;
        };
        value_item(r, &v, out, end, &mut stack)?;
    }
    Ok(())
}

/// Prints one value of [`value_into`]'s walk; a LinkValue's or a queue's
/// items go on `stack`, after the `None` that closes them.
fn value_item(r: &(impl AtomSource + ?Sized), v: &Value, out: &mut String, end: usize, stack: &mut Vec<Option<Value>>) -> Result<(), TooLarge> {
    match v {
        Value::Float(xs) => {
            push_numbers(out, "(FloatValue", xs);
        }
        Value::String(ss) => {
            out.push_str("(StringValue");
            for s in ss.iter() {
                out.push(' ');
                write_str_literal(out, s);
            }
            out.push(')');
        }
        Value::Bool(bs) => {
            out.push_str("(BoolValue");
            for b in bs.iter() {
                out.push_str(if *b { " #t" } else { " #f" });
            }
            out.push(')');
        }
        Value::Link(vs) => {
            out.push_str(if vs.is_empty() { "(LinkValue" } else { "(LinkValue " });
            stack.push(None);
            stack.extend(vs.iter().rev().cloned().map(Some));
        }
        // What it is made of, not a reading: printing runs no code (and
        // a reading may add atoms, which a writer holding the space's
        // read view must not wait for).
        Value::Stream(st) => match st.random_len() {
            Some(n) => {
                let _ = write!(out, "(RandomStream {n})");
            }
            None => {
                out.push('(');
                out.push_str(st.stream_type().name());
                out.push(' ');
                for &a in st.atoms() {
                    write_tree(r, a, Tree::Structure, out, end)?;
                }
                out.push(')');
            }
        },
        Value::Queue(q) => {
            let vs = q.snapshot();
            out.push_str(if vs.is_empty() { "(QueueValue" } else { "(QueueValue " });
            stack.push(None);
            stack.extend(vs.into_iter().rev().map(Some));
        }
        Value::Void => out.push_str("(VoidValue)"),
        Value::Truth(TruthValue::Simple { strength, confidence }) => {
            push_numbers(out, "(SimpleTruthValue", &[*strength, *confidence]);
        }
        Value::Truth(TruthValue::Count { mean, confidence, count }) => {
            push_numbers(out, "(CountTruthValue", &[*mean, *confidence, *count]);
        }
        // Structure only, as upstream: an atom's own values are its own
        // business, and a value may hold the atom that holds it.
        Value::Atom(h) => write_tree(r, *h, Tree::Structure, out, end)?,
        // Its name, as upstream writes it: the space's atoms are stored
        // (or not) on their own.
        Value::Space(s) => {
            out.push_str("(AtomSpace ");
            write_str_literal(out, s.space().space_name());
            out.push(')');
        }
    }
    Ok(())
}

/// Which atoms a [`dump`] prints.
#[derive(Copy, Clone, Debug)]
pub enum Select {
    /// Every atom that no link contains; together they print the whole space.
    Roots,
    /// Every atom of this type (subtypes included), each printed whole.
    Type(Type),
}

/// Writes atoms, one top-level expression each, and returns how many.
/// `progress` is called with the count every 64 Ki atoms.
/// The truth- and attention-value keys are left out: they print inside
/// the atoms whose values they key, and upstream holds them in no space.
pub fn dump(r: &(impl AtomRead + Sync), select: Select, form: Form, w: impl io::Write, progress: impl FnMut(u64)) -> io::Result<u64> {
    let keys = super::value_key_atoms(|t, n| r.get_node(t, n));
    let atoms: Box<dyn Iterator<Item = Handle> + '_> = match select {
        Select::Roots => Box::new(r.all_atoms().filter(|&h| r.incoming_size(h) == Some(0))),
        Select::Type(t) => Box::new(r.handles_by_type(t, true)),
    };
    write_each(r, atoms.filter(|h| !keys.contains(h)), form, w, progress)
}

/// [`dump`] of a space: through its read view when it has one, else (a
/// child space, or one with children) atom by atom through the space. At
/// or below a space of two bases, which may see a content twice, one copy
/// of each is printed ([`AtomSpace::one_copy_each`]), its members as their
/// copies printed: a file holds one atom per content.
pub fn dump_space(space: &AtomSpace, select: Select, form: Form, w: impl io::Write, progress: impl FnMut(u64)) -> io::Result<u64> {
    if let Some(view) = space.read() {
        return dump(&view, select, form, w, progress);
    }
    let keys = super::value_key_atoms(|t, n| space.get_node(t, n));
    if !space.is_chain() {
        let seen = OneCopyEach::of(space);
        let atoms: Vec<Handle> = match select {
            Select::Roots => seen.copies.kept().iter().copied().filter(|h| !seen.held.contains(h)).collect(),
            Select::Type(t) => seen.copies.kept().iter().copied().filter(|&h| space.get_type(h).is_some_and(|x| x.is_a(t))).collect(),
        };
        return write_each(&seen, atoms.into_iter().filter(|h| !keys.contains(h)), form, w, progress);
    }
    let atoms: Vec<Handle> = match select {
        Select::Roots => space.handles_by_type(crate::types::ATOM, true).filter(|&h| space.incoming_size(h) == Some(0)).collect(),
        Select::Type(t) => space.handles_by_type(t, true).collect(),
    };
    write_each(space, atoms.into_iter().filter(|h| !keys.contains(h)), form, w, progress)
}

/// A space that may see a content twice, seen one copy per content: the
/// copies kept, each link's members as their kept copies.
struct OneCopyEach<'s> {
    space: &'s AtomSpace,
    copies: crate::Copies,
    /// The kept links some of whose members are copies not kept, with
    /// their members' kept copies.
    outgoing: hashbrown::HashMap<Handle, Vec<Handle>, foldhash::fast::RandomState>,
    /// The kept atoms some kept link holds: not roots.
    held: hashbrown::HashSet<Handle, foldhash::fast::RandomState>,
}

impl<'s> OneCopyEach<'s> {
    fn of(space: &'s AtomSpace) -> Self {
        let copies = space.one_copy_each();
        let (mut outgoing, mut held) = (hashbrown::HashMap::default(), hashbrown::HashSet::default());
        for &h in copies.kept() {
            if let Some(out) = space.outgoing(h) {
                held.extend(out.iter().map(|&m| copies.chosen(m)));
                if out.iter().any(|&m| copies.chosen(m) != m) {
                    outgoing.insert(h, out.iter().map(|&m| copies.chosen(m)).collect());
                }
            }
        }
        OneCopyEach { space, copies, outgoing, held }
    }
}

impl AtomSource for OneCopyEach<'_> {
    fn get_type(&self, h: Handle) -> Option<Type> {
        self.space.get_type(h)
    }
    fn name(&self, h: Handle) -> Option<&str> {
        self.space.name(h)
    }
    fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        match self.outgoing.get(&h) {
            Some(kept) => Some(kept),
            None => self.space.outgoing(h),
        }
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        self.space.get_tv(h)
    }
    fn key_values(&self, h: Handle) -> Cow<'_, [(Handle, Value)]> {
        Cow::Owned(self.space.key_values(h))
    }
}

/// Writes each atom on a line of its own; how many. The atoms are formatted
/// a chunk at a time on the current rayon pool's threads, at most four
/// chunks a thread in flight (memory bounded whatever the space's size;
/// fewer leave a thread idle longer at the end of each round), and
/// written in order.
fn write_each(
    r: &(impl AtomSource + Sync),
    atoms: impl Iterator<Item = Handle>,
    form: Form,
    mut w: impl io::Write,
    mut progress: impl FnMut(u64),
) -> io::Result<u64> {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let in_flight = 4 * rayon::current_num_threads();
    let mut atoms = atoms.fuse();
    let mut n = 0u64;
    // Kept from one round to the next, not made anew. One that held a
    // chunk of large atoms (a chunk is 0.5 MiB or so) is let go.
    const KEEP: usize = 2 << 20;
    let mut texts: Vec<String> = (0..in_flight).map(|_| String::new()).collect();
    loop {
        let window: Vec<Vec<Handle>> = (0..in_flight).map(|_| atoms.by_ref().take(CHUNK).collect::<Vec<_>>()).take_while(|c| !c.is_empty()).collect();
        if window.is_empty() {
            break;
        }
        let done: Vec<Result<(), TooLarge>> = window
            .par_iter()
            .zip(texts.par_iter_mut())
            .map(|(chunk, text)| {
                text.clear();
                for (i, &h) in chunk.iter().enumerate() {
                    prefetch_ahead(r, chunk, i);
                    write_atom(r, h, form, text)?;
                    text.push('\n');
                }
                Ok(())
            })
            .collect();
        for ((text, chunk), done) in texts.iter_mut().zip(&window).zip(done) {
            done.map_err(io::Error::other)?;
            w.write_all(text.as_bytes())?;
            if text.capacity() > KEEP {
                *text = String::new();
            }
            let before = n;
            n += chunk.len() as u64;
            if before / 65536 != n / 65536 {
                progress(n);
            }
        }
    }
    w.flush()?;
    Ok(n)
}

/// The look-ahead of a writer at root `i` of `roots`: each step fetches
/// what the step before brought the address of, so the misses of the
/// atoms below a root overlap with the printing of the roots before it:
/// records (and truth values) 16 roots ahead, their names or outgoing
/// sets 12 ahead, their members' records 8 ahead, those members' names or
/// outgoing sets 4 ahead, the records of the members' members 2 ahead and
/// their names or outgoing sets 1 ahead.
fn prefetch_ahead(r: &(impl AtomSource + ?Sized), roots: &[Handle], i: usize) {
    const MEMBERS: usize = 8;
    if !r.prefetches() {
        return;
    }
    let members = |h: Handle| r.outgoing(h).unwrap_or(&[]).iter().copied().take(MEMBERS);
    let root = |at: usize| roots.get(i + at).copied();
    root(16).into_iter().for_each(|h| r.prefetch(h));
    root(12).into_iter().for_each(|h| r.prefetch_contents(h));
    root(8).into_iter().flat_map(members).for_each(|m| r.prefetch(m));
    root(4).into_iter().flat_map(members).for_each(|m| r.prefetch_contents(m));
    root(2).into_iter().flat_map(members).flat_map(members).for_each(|x| r.prefetch(x));
    root(1).into_iter().flat_map(members).flat_map(members).for_each(|x| r.prefetch_contents(x));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back() {
        for x in [0.0, 1.0, 0.9, 0.8, -2.5, 1e-7, 1e20, 0.1 + 0.2, f64::MIN_POSITIVE, 123456.789] {
            let s = fmt_f64(x);
            assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
        }
        assert_eq!(fmt_f64(1.0), "1");
        assert_eq!(fmt_f64(0.9), "0.9");
        assert_eq!(fmt_f64(1e-7), "1e-7");
        assert_eq!(fmt_f64(f64::INFINITY), "+inf.0");
    }

    /// Rust's `{x}` and `{x:e}` (what `Number` wrote before it took its
    /// digits from `ryu`) for random bit patterns, random fractions,
    /// decimals with few digits, powers of ten, the edges of the two forms,
    /// and ties between two shortest forms (binary fractions near 2^49,
    /// and known ones).
    #[test]
    fn numbers_print_as_rusts_own_formatting() {
        use rand::{Rng, SeedableRng};
        let rust = |x: f64| {
            let a = x.abs();
            if a != 0.0 && !(1e-5..1e17).contains(&a) {
                format!("{x:e}")
            } else {
                format!("{x}")
            }
        };
        let check = |x: f64| {
            if x.is_finite() {
                assert_eq!(fmt_f64(x), rust(x), "bits {:#x}", x.to_bits());
            }
        };
        let next = |x: f64| f64::from_bits(x.to_bits() + 1);
        let before = |x: f64| f64::from_bits(x.to_bits() - 1);
        // Ties between two shortest forms: 2206002828313309.25, 693854064550008.25
        // (16 digits), 180.929840087890625 (a float32 widened), 9 / 2^23
        // (printed with an exponent).
        let ties = [8824011313253237.0 / 4.0, 2775416258200033.0 / 4.0, 5928709.0 / 32768.0, 9.0 / 8388608.0];
        for x in ties {
            let mut shortest = ryu::Buffer::new();
            let (digits, exp) = Digits::of(shortest.format_finite(x));
            assert!(is_tie(x, digits.as_bytes(), exp), "{x} is a tie");
        }
        for x in ties.into_iter().chain([0.0, 1e-5, 1e17, 1.0, 0.1, 5e-324, f64::MIN_POSITIVE, f64::MAX, 123456789012345680.0, 0.30000000000000004]) {
            for y in [x, next(x), if x > 0.0 { before(x) } else { x }] {
                check(y);
                check(-y);
            }
        }
        for e in -324..=308 {
            check(format!("1e{e}").parse().unwrap());
            check(format!("9.999999999999999e{e}").parse().unwrap());
        }
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        // Whole numbers, which `ryu` prints with a `.0`, below 2^53 and above.
        for _ in 0..100_000 {
            check(rng.gen_range(1u64..10_000_000_000_000_000) as f64);
            check(rng.gen_range(1u64..1 << 20) as f64);
        }
        // Around where ties can be, the fractions they need.
        for _ in 0..100_000 {
            let m = rng.gen_range(1u64 << 45..1 << 53) as f64;
            check(m / [1.0, 2.0, 4.0, 8.0, 16.0, 32.0][rng.gen_range(0..6)]);
        }
        for _ in 0..300_000 {
            check(f64::from_bits(rng.gen()));
            check(rng.gen::<f64>());
            check(f64::from(rng.gen_range(-1_000_000i32..1_000_000)) / [1.0, 10.0, 1000.0, 1e6][rng.gen_range(0..4)]);
        }
    }

    #[test]
    fn escapes() {
        let mut s = String::new();
        write_str_literal(&mut s, "a\"b\\c\nd");
        assert_eq!(s, r#""a\"b\\c\nd""#);
        // Plain names are copied whole; what follows the first byte that
        // needs care is escaped as before, non-ASCII kept, controls escaped.
        for (name, written) in
            [("plain name 42", r#""plain name 42""#), ("", r#""""#), ("café \u{85}x\u{7}", "\"café \\x85;x\\x7;\""), ("tab\tend\"", r#""tab\tend\"""#)]
        {
            let mut s = String::new();
            write_str_literal(&mut s, name);
            assert_eq!(s, written, "{name:?}");
        }
    }

    /// A child of two bases sees each base's copy of `x`, `y` and their
    /// ListLink; a dump prints each content once, as the child's lookups
    /// find it, also inside a link only the other base holds.
    #[test]
    fn a_space_that_sees_a_content_twice_prints_one_copy_each() {
        use crate::types::{CONCEPT_NODE, INHERITANCE_LINK, LIST_LINK, MEMBER_LINK};
        let (a, b) = (AtomSpace::new(), AtomSpace::new());
        // Made first: bases that hold atoms must descend from one root.
        let child = AtomSpace::new_child(&[&a, &b]).unwrap();
        for (i, base) in [&a, &b].into_iter().enumerate() {
            let x = base.add_node(CONCEPT_NODE, "x").unwrap();
            let y = base.add_node(CONCEPT_NODE, "y").unwrap();
            let l = base.add_link(LIST_LINK, &[x, y]).unwrap();
            base.set_tv(x, TruthValue::simple(0.25 + i as f64 / 4.0, 0.5)).unwrap();
            base.set_tv(l, TruthValue::simple(0.5, 0.125 + i as f64 / 4.0)).unwrap();
            // A link only one base holds, over its own copies: whichever
            // base's copies the lookups find, one of these two is printed
            // over the other's.
            base.add_link(if i == 0 { MEMBER_LINK } else { INHERITANCE_LINK }, &[x, y]).unwrap();
        }
        assert!(!child.is_chain());
        let (x, y) = (child.get_node(CONCEPT_NODE, "x").unwrap(), child.get_node(CONCEPT_NODE, "y").unwrap());
        let l = child.get_link(LIST_LINK, &[x, y]).unwrap();
        assert_eq!(child.size(), 8, "two copies of x, y and the list");
        let print = |select| {
            let mut out = Vec::new();
            let n = dump_space(&child, select, Form::Wire, &mut out, |_| {}).unwrap();
            (n, String::from_utf8(out).unwrap())
        };
        let (n, nodes) = print(Select::Type(CONCEPT_NODE));
        assert_eq!(n, 2, "{nodes}");
        let (n, links) = print(Select::Type(crate::types::LINK));
        assert_eq!(n, 3, "the list, the member and the inheritance: {links}");
        let (n, roots) = print(Select::Roots);
        assert_eq!(n, 3, "the list, the member and the inheritance: {roots}");
        let back = AtomSpace::new();
        crate::sexpr::load_str(&mut &back, &roots).unwrap();
        assert_eq!(back.size(), 5, "{roots}");
        let (bx, by) = (back.get_node(CONCEPT_NODE, "x").unwrap(), back.get_node(CONCEPT_NODE, "y").unwrap());
        assert_eq!(back.get_tv(bx), child.get_tv(x));
        assert_eq!(back.get_tv(back.get_link(LIST_LINK, &[bx, by]).unwrap()), child.get_tv(l));
        assert!(back.get_link(INHERITANCE_LINK, &[bx, by]).is_some() && back.get_link(MEMBER_LINK, &[bx, by]).is_some());
    }
}
